/**
 * The `isocode` command line. `bin/isocode.js` imports this module (built as `dist/cli.js`) and
 * calls {@link main} in the same process (no re-exec: isolates run in sandbox worker processes,
 * see snapshot.ts). Commands are imported when they run, so `--help` loads only commander.
 *
 * Exit codes: 0 success; 1 a failed run (its kind on stderr), a check with diagnostics, or an
 * unexpected error; 2 a usage or configuration error (nothing ran).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Command, CommanderError, Option } from 'commander';
import type { CheckFlags } from './commands/check.js';
import type { McpFlags } from './commands/mcp.js';
import type { RunFlags } from './commands/run.js';
import type { SdkFlags } from './commands/sdk.js';
import type { ServeFlags } from './commands/serve.js';
import { importOptional } from '../optional.js';
import { describeFailure, EXIT_FAILURE, EXIT_USAGE } from './errors.js';
import { shippedPath } from './input.js';
import { processIo, type Io } from './output.js';
import { packageInfo } from './pkg.js';

/**
 * `run` and `check` start their sandbox worker process first, so its start-up overlaps the loading of
 * the library and the config (decision 022 §3c); the runtime adopts it. Unused (a config that runs
 * in-process), it exits with this process.
 */
async function prestartSandbox(): Promise<void> {
  (await import('../sandbox/worker/spawn.js')).prestartWorker();
}

/** `--config` and `--tools` values: a shipped `examples/…` file when the working directory has none. */
const fileArg = (value: string): string => shippedPath(value);

const examples = (lines: string[]): string =>
  `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

const CONFIG_HELP =
  'config file (default: ./isocode.config.json if it exists, else the built-in demo tools kv.* and text.*)';
const TOOLS_HELP =
  'tools file instead of the config: a JSON catalog (MCP tools/list shape) or a JS/TS module exporting tools';

/** The commander program; `exit` receives each command's exit code. Commands load lazily, so help is fast. */
function buildProgram(io: Io, signal: AbortSignal, exit: (code: number) => void): Command {
  const program = new Command('isocode')
    .description(
      'Sandboxed code mode for agents: one run_code tool, a typed TypeScript SDK of your tools, programs run in V8 isolates.',
    )
    .version(packageInfo().version, '-V, --version', 'print the isocode version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, '')),
      writeErr: (s) => io.err(s.replace(/\n$/, '')),
    })
    .exitOverride()
    .addHelpText(
      'after',
      examples([
        'isocode run examples/hello.ts',
        'echo \'return (await tools.text.word_count({ text: "a b c" })).words\' | isocode run -',
        'isocode sdk --tools catalog.json --out sdk.d.ts',
        'isocode mcp --config isocode.config.json',
        'isocode serve --port 8787',
      ]),
    );

  program
    .command('run')
    .description('run a TypeScript program in code mode and print its logs and result')
    .argument('<program>', 'program file (.ts), or - to read it from stdin')
    .option('-c, --config <file>', CONFIG_HELP, fileArg)
    .option('-t, --tools <file>', TOOLS_HELP, fileArg)
    .option('-s, --scope <id>', "scope to run in (default: the config's defaultScope)")
    .option('--json', 'print the full ToolResult as JSON (exit code unchanged)')
    .option('--no-typecheck', 'skip the type-check (run even with type errors)')
    .option('--memory-mb <mb>', 'isolate heap limit in MiB')
    .option('--cpu-ms <ms>', 'CPU time limit of the program in milliseconds')
    .option('--wall-ms <ms>', 'wall-clock limit of the program in milliseconds')
    .addHelpText(
      'after',
      examples([
        'isocode run examples/hello.ts',
        'isocode run job.ts --config isocode.config.json --scope tenant-a',
        'isocode run job.ts --tools ./my-tools.mjs --json',
        'cat job.ts | isocode run - --cpu-ms 1000 --memory-mb 32',
      ]) +
        '\nExit code: 0 on success; 1 when the run fails (stderr: "error: <kind>: ...", kind is typecheck, syntax,\nexception, timeout, memory, output-limit, ...); 2 on a usage or config error.\n',
    )
    .action(async (file: string, flags: RunFlags) => {
      await prestartSandbox();
      exit(await (await import('./commands/run.js')).runCommand(file, flags, io, signal));
    });

  program
    .command('check')
    .description("type-check a program against the SDK of the scope's tools, without running it")
    .argument('<program>', 'program file (.ts), or - to read it from stdin')
    .option('-c, --config <file>', CONFIG_HELP, fileArg)
    .option('-t, --tools <file>', TOOLS_HELP, fileArg)
    .option('-s, --scope <id>', 'scope whose SDK to check against')
    .option('--json', 'print the diagnostics as JSON')
    .addHelpText(
      'after',
      examples(['isocode check examples/hello.ts', 'isocode check job.ts --tools catalog.json']) +
        '\nExit code: 0 when the program is well typed, 1 when there are diagnostics, 2 on a usage or config error.\n',
    )
    .action(async (file: string, flags: CheckFlags) => {
      await prestartSandbox();
      exit(await (await import('./commands/check.js')).checkCommand(file, flags, io, signal));
    });

  program
    .command('sdk')
    .description('print the TypeScript SDK a program is written against (or the run_code prompt)')
    .option('-c, --config <file>', CONFIG_HELP, fileArg)
    .option('-t, --tools <file>', TOOLS_HELP, fileArg)
    .option('-s, --scope <id>', 'scope whose visible tools to render')
    .option('-o, --out <file>', 'write to a file instead of stdout')
    .option('--stats', 'print the SDK size against the JSON wire (o200k tokens and characters)')
    .addOption(
      new Option(
        '-f, --format <format>',
        'd.ts (default): the declarations; prompt: instructions + SDK; with --stats: text (default) or json',
      ).choices(['d.ts', 'prompt', 'text', 'json']),
    )
    .addHelpText(
      'after',
      examples([
        'isocode sdk',
        'isocode sdk --tools test/fixtures/catalogs/filesystem.json',
        'isocode sdk --tools test/fixtures/catalogs/filesystem.json --stats',
        'isocode sdk --config isocode.config.json --format prompt --out prompt.md',
      ]),
    )
    .action(async (flags: SdkFlags) =>
      exit(await (await import('./commands/sdk.js')).sdkCommand(flags, io)),
    );

  program
    .command('serve')
    .description('start the HTTP service (POST /v1/run, /v1/execute, GET /v1/tools, /v1/sdk, ...)')
    .option('-c, --config <file>', CONFIG_HELP, fileArg)
    .option('-p, --port <port>', 'TCP port (default: server.port of the config, 8787)')
    .option('--host <host>', 'interface to bind (default: server.host of the config, 127.0.0.1)')
    .option(
      '--console',
      'serve the web console at /console (default: server.console of the config)',
    )
    .addHelpText(
      'after',
      examples([
        'isocode serve',
        'isocode serve --console   # then open http://127.0.0.1:8787/console/',
        'isocode serve --config isocode.config.json --port 9000',
        `curl -s localhost:8787/v1/run -H 'content-type: application/json' -d '{"code":"return 1","description":"one"}'`,
      ]),
    )
    .action(async (flags: ServeFlags) =>
      exit(
        await (
          await importOptional(['hono', '@hono/node-server'], () => import('./commands/serve.js'))
        ).serveCommand(flags, io, signal),
      ),
    );

  program
    .command('mcp')
    .description(
      'serve the tools as an MCP server (stdio by default; in code mode one tool: run_code)',
    )
    .option('-c, --config <file>', CONFIG_HELP, fileArg)
    .option('-t, --tools <file>', TOOLS_HELP, fileArg)
    .option('-s, --scope <id>', 'scope the MCP client works in')
    .option(
      '--http <port>',
      'serve streamable HTTP on this port (0: any free port) instead of stdio',
    )
    .option('--host <host>', 'interface for --http (default: server.host of the config, 127.0.0.1)')
    .option('--stateless', 'with --http: no sessions, every request served on its own')
    .addOption(
      new Option('--helpers <when>', 'search_tools/describe_tool discovery helpers for large SDKs')
        .choices(['auto', 'always', 'never'])
        .default('auto'),
    )
    .addHelpText(
      'after',
      examples([
        'isocode mcp',
        'isocode mcp --config isocode.config.json --scope default',
        'isocode mcp --http 3333',
      ]) +
        '\nMCP client config (stdio):\n  { "mcpServers": { "isocode": { "command": "npx", "args": ["isocode", "mcp", "--config", "/abs/isocode.config.json"] } } }\n\nIn stdio mode nothing but protocol messages is written to stdout; logs go to stderr.\n',
    )
    .action(async (flags: McpFlags) =>
      exit(
        await (
          await importOptional('@modelcontextprotocol/sdk', () => import('./commands/mcp.js'))
        ).mcpCommand(flags, io, signal),
      ),
    );

  program
    .command('bench')
    .description('run the benchmark suite (from a source checkout)')
    .argument(
      '[args...]',
      'arguments for benchmarks/run.ts (--quick, --only <ids>, --json <path>, ...)',
    )
    .allowUnknownOption()
    .helpOption(false)
    .addHelpText(
      'after',
      examples(['isocode bench --quick', 'isocode bench --only latency,dispatch']),
    )
    .action(async (args: string[]) =>
      exit(await (await import('./commands/bench.js')).benchCommand(args)),
    );

  return program;
}

/**
 * Runs the CLI with `argv` (without the node and script paths) and sets `process.exitCode`.
 * Never calls `process.exit`: after a sandbox limit kill the runtime is closed (its isolates
 * drained) and the event loop is given a turn before the exit code is set, and the process ends
 * when nothing is left open.
 */
export async function main(argv: string[], io: Io = processIo): Promise<void> {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (): void => {
    signals += 1;
    if (signals === 1) {
      controller.abort(new Error('interrupted'));
      return;
    }
    // A second ^C: stop waiting.
    process.exitCode = 130;
    process.exit();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `isocode run x.ts | head`: a reader that goes away is not a crash.
  const onPipeError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE') throw err;
  };
  process.stdout.on('error', onPipeError);

  let exitCode = 0;
  try {
    const program = buildProgram(io, controller.signal, (code) => (exitCode = code));
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and --version exit 0; every parse error is a usage error
      exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
    } else {
      const { message, exitCode: code } = describeFailure(err);
      io.err(`error: ${message}`);
      exitCode = code;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (controller.signal.aborted && exitCode === EXIT_FAILURE) exitCode = 130;
  await yieldToLoop();
  process.exitCode = exitCode;
}
