import { describe, expect, it } from 'vitest';
import { pgAdminUrl } from '../helpers/backends.ts';
import { runCli, runCliInProcess } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * A command against a PostgreSQL it cannot use says what failed and where, never the password.
 * `spyglass serve` as its own process for one cause; every cause through `spyglass check` in-process,
 * which opens the database the same way (src/store/open-store.ts) and prints through the same
 * error path (src/cli/run.ts), without starting a node process per case.
 */
function withUrl(change: (u: URL) => void): string {
  const u = new URL(pgAdminUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.password = 'hunter2-secret';
  change(u);
  return u.toString();
}

const ENV = { SPYGLASS_PORT: '0', SPYGLASS_GRPC_PORT: '0', SPYGLASS_LOG_LEVEL: 'warn' };

async function serve(databaseUrl: string) {
  return failed(await runCli(['serve'], { ...ENV, SPYGLASS_DATABASE_URL: databaseUrl }));
}

async function check(databaseUrl: string) {
  return failed(await runCliInProcess(['check'], { ...ENV, SPYGLASS_DATABASE_URL: databaseUrl }));
}

function failed(r: { code: number; stderr: string }) {
  expect(r.code).toBe(1);
  expect(r.stderr).not.toMatch(/Failed query|CREATE SCHEMA/);
  expect(r.stderr).not.toContain('hunter2-secret');
  return r.stderr;
}

describe('PostgreSQL connection failures', () => {
  it.for([
    ['serve', serve],
    ['check', check],
  ] as const)(
    'a refused port names host and port and asks whether PostgreSQL runs (%s)',
    async ([, run]) => {
      const port = await freePort();
      const stderr = await run(
        withUrl(
          (u) => ((u.hostname = '127.0.0.1'), (u.port = String(port)), (u.pathname = '/spyglass')),
        ),
      );
      expect(stderr).toContain(
        `cannot connect to PostgreSQL at 127.0.0.1:${port} (database "spyglass"`,
      );
      expect(stderr).toMatch(/connection refused; nothing is listening there/);
    },
  );

  it('an unknown host is named', async () => {
    const stderr = await check(withUrl((u) => (u.hostname = 'spyglass-db.invalid')));
    expect(stderr).toMatch(
      /cannot connect to PostgreSQL at spyglass-db\.invalid:\d+ .*unknown host "spyglass-db\.invalid"/,
    );
  });

  describe.runIf(pgAdminUrl !== null)('on a running server', () => {
    it('an unknown database is named, with how to create it', async () => {
      const stderr = await check(withUrl((u) => (u.pathname = '/no_such_db')));
      expect(stderr).toMatch(
        /cannot connect to PostgreSQL at [\w.]+:\d+ \(database "no_such_db", user "postgres"\): database "no_such_db" does not exist; create it \(createdb no_such_db\)/,
      );
    });

    it('a refused user is named (the same branch as a wrong password)', async () => {
      const stderr = await check(withUrl((u) => (u.username = 'nobody_here')));
      expect(stderr).toMatch(/user "nobody_here"\): the server refused user "nobody_here"/);
    });
  });
});
