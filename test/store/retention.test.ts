import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteSpansBefore } from '../../src/store/spans-repo.ts';
import { backends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

describe.each(backends.filter((b) => b.available))('span retention on $name', (backend) => {
  let server: TestServer;
  let config = '';
  beforeAll(async () => {
    // The server's own retention job keeps 10 years here, so only the test's call below deletes
    // (with 30 days its first pass could remove the old spans between the insert and that call).
    config = mkdtempSync(join(tmpdir(), 'spyglass-ret-'));
    writeFileSync(join(config, 'spyglass.yaml'), 'retention:\n  spans_days: 3650\n');
    server = await startTestServer({
      ...(await backend.env()),
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_CONFIG: join(config, 'spyglass.yaml'),
    });
  });
  afterAll(async () => {
    await server?.dispose();
    rmSync(config, { recursive: true, force: true });
  });

  it('removes spans and rollups older than the cutoff, in chunks, and keeps the rest', async () => {
    const old = new Date(Date.now() - 40 * 86_400_000);
    const recent = new Date(Date.now() - 60_000);
    const at = (d: Date, i: number) => ({
      started_at: new Date(d.getTime() + i).toISOString(),
      ended_at: new Date(d.getTime() + i + 5).toISOString(),
    });
    const batch = [
      ...Array.from({ length: 25 }, (_, i) => nativeSpan({ session_id: 'ret-old', ...at(old, i) })),
      ...Array.from({ length: 3 }, (_, i) =>
        nativeSpan({ session_id: 'ret-new', ...at(recent, i) }),
      ),
    ];
    expect((await postJson(`${server.httpUrl}/api/traces/spans`, batch)).status).toBe(202);
    // Days without a partition (40 days ago) live in the default partition: deleted row by row.
    const outcome = await deleteSpansBefore(
      server.services.store.db,
      new Date(Date.now() - 30 * 86_400_000),
      10,
    );
    expect(outcome).toEqual({ droppedPartitions: [], defaultRowsDeleted: 25 });
    const since = new Date(Date.now() - 60 * 86_400_000).toISOString();
    expect((await getJson(`${server.httpUrl}/api/traces/spans?session_id=ret-old`)).json).toEqual(
      [],
    );
    expect(
      (await getJson(`${server.httpUrl}/api/traces/spans?session_id=ret-new`)).json,
    ).toHaveLength(3);
    const sessions = (
      await getJson(`${server.httpUrl}/api/agents/sessions?since=${since}`)
    ).json.map((s: any) => s.session_id);
    expect(sessions).toContain('ret-new');
    expect(sessions).not.toContain('ret-old');
    const lineage = (await getJson(`${server.httpUrl}/api/agents/lineage?since=${since}`)).json;
    expect(lineage.edges).toEqual([
      expect.objectContaining({ source: 'agent:planner', target: 'server:filesystem', calls: 3 }),
    ]);
  });
});
