/**
 * The one allow-list of environment variables a process that touches program text receives (the
 * sandbox workers and the type-checker). Everything else of the host's environment — API keys, tool
 * credentials, database URLs — stays in the host: a process a program could take over holds none of
 * it (decision record 032).
 */

/** The environment of a sandbox worker or checker process: `PATH` and `NODE_ENV`, nothing else. */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { PATH: env.PATH ?? '/usr/bin:/bin', NODE_ENV: env.NODE_ENV ?? 'production' };
}
