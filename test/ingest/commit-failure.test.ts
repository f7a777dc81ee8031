import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../src/store/db.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * A commit that fails for a reason retrying cannot fix is not an outage: no 503 (exporters would
 * retry it, then drop the batch), and the log names the database error and the batch size without
 * the statement's parameters (the whole payload, up to 10 MiB).
 */
describe('a commit the database refuses', () => {
  const log = captureLog();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' }, log.logger);
    // A rule validation does not know, standing in for any deterministic database refusal.
    await execute(
      server.services.store.db,
      sql`alter table spans add constraint no_forbidden_tool check (tool_name <> 'forbidden')`,
    );
  });
  afterAll(async () => server?.dispose());

  it('answers 500 without internals, logs the PostgreSQL code and message and the batch size, not the payload', async () => {
    const secret = `payload-${'s'.repeat(100_000)}`;
    const res = await postJson(`${server.httpUrl}/api/traces/spans`, [
      nativeSpan({ session_id: 'refused', tool_name: 'forbidden', llm_input: secret }),
      nativeSpan({ session_id: 'refused' }),
    ]);
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.json).toEqual({ detail: 'internal error' });
    expect((await getJson(`${server.httpUrl}/api/traces/spans?session_id=refused`)).json).toEqual(
      [],
    );

    const failed = log.lines.find((l) => l.msg === 'group commit failed');
    expect(failed).toMatchObject({
      spans: 2,
      err: { code: '23514', message: expect.stringContaining('no_forbidden_tool') },
    });
    expect(log.text()).not.toContain('payload-sss');
    expect(log.text().length).toBeLessThan(20_000);
  });

  it('keeps serving other requests', async () => {
    expect(
      (await postJson(`${server.httpUrl}/api/traces/spans`, [nativeSpan({ session_id: 'fine' })]))
        .json,
    ).toEqual({ accepted: 1, duplicates: 0 });
  });
});
