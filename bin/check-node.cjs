#!/usr/bin/env node
// Runs before npm installs isocode's dependencies (preinstall), so an unsupported Node gets this
// message instead of a C++ compiler error from isolated-vm's native build. The supported lines are
// package.json's "engines" (decision record 013); this file only reads them.
'use strict';
const { engines } = require('../package.json');

const major = Number(process.versions.node.split('.')[0]);
const supported = engines.node.match(/\^(\d+)\./g).map((m) => Number(m.slice(1, -1)));

if (!supported.includes(major)) {
  process.stderr.write(
    `isocode supports Node ${supported.join(', ')} (package.json "engines": ${engines.node}); ` +
      `this is Node ${process.versions.node}.\n` +
      `Its sandbox needs the native isolated-vm addon, which is built for those Node lines only. ` +
      `Switch to a supported Node (for example \`nvm use 24\`) and install again.\n`,
  );
  process.exit(1);
}
