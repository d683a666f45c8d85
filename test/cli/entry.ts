// A tiny entry for tests: runs the CLI from source under tsx (no build needed).
// Spawn with: node --no-node-snapshot --import tsx test/cli/entry.ts <args>
import { main } from '../../src/cli/main.js';

await main(process.argv.slice(2));
