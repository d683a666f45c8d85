/**
 * The URL a started `isocode serve` / `isocode mcp --http` process prints on stderr
 * (`listening on http://…`): one reader for every test that starts one.
 */
import type { ChildProcess } from 'node:child_process';

/** A started server's URL, and everything it has printed on stderr so far. */
export interface Listening {
  url: string;
  stderr: () => string;
}

/**
 * Resolves once `child` prints its URL; rejects when the child exits first or after `timeoutMs`,
 * with what it printed so far. Sets stderr's encoding to utf8 and keeps collecting it.
 */
export function listeningUrl(
  child: ChildProcess,
  options: { label?: string; timeoutMs?: number } = {},
): Promise<Listening> {
  const label = options.label ?? 'the server';
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  return new Promise<Listening>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${label}: no URL: ${stderr}`)),
      options.timeoutMs ?? 60_000,
    );
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`${label} exited ${code}: ${stderr}`));
    };
    child.once('exit', onExit);
    child.stderr?.on('data', (d: string) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve({ url: m[1], stderr: () => stderr });
      }
    });
  });
}
