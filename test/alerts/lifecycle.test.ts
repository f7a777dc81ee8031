import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { startServer, type RunningServer } from '../../src/main.ts';
import { call } from '../helpers/auth.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { seededDataDir } from '../helpers/data-dir.ts';
import { freePort } from '../helpers/free-port.ts';
import { fireInput } from './helpers.ts';

const MIN = 60_000;

describe('alert lifecycle (spec §3.4) with an injected clock, across a restart', () => {
  const dataDir = seededDataDir('spyglass-alerts-life-');
  let server: RunningServer;
  // Two hours ago, so a snooze set on this clock has ended by real time after the restart.
  const base = Date.now() - 120 * MIN;
  let offset = 0;

  const start = async () => {
    const config = loadConfig(
      {
        SPYGLASS_PORT: '0',
        SPYGLASS_GRPC_PORT: String(await freePort()),
        SPYGLASS_DATA_DIR: dataDir,
      },
      dataDir,
    );
    return startServer(config, pino({ level: 'silent' }));
  };
  const get = async (path: string) => (await call(server.httpUrl, 'GET', path)).json;
  const post = (path: string, body?: unknown) =>
    call(server.httpUrl, 'POST', path, body === undefined ? {} : { body });

  beforeAll(async () => {
    server = await start();
    server.services.alerts.now = () => new Date(base + offset);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let a: string;
  let b: string;

  it('ack lowers needs_attention; illegal moves are 409s that say why', async () => {
    a = (await server.services.alerts.fire(fireInput({ dedupKey: 'k:a', serverName: 'a' })))!.id;
    b = (await server.services.alerts.fire(
      fireInput({ dedupKey: 'k:b', serverName: 'b', severity: 'warning' }),
    ))!.id;
    expect(await get('/api/alerts/counts')).toEqual({
      firing: 2,
      acknowledged: 0,
      snoozed: 0,
      needs_attention: 2,
      by_severity: { critical: 1, warning: 1, info: 0 },
    });
    const acked = await post(`/api/alerts/${a}/ack`);
    expect(acked.status).toBe(200);
    expect(acked.json).toMatchObject({
      id: a,
      status: 'acknowledged',
      acknowledged_at: new Date(base).toISOString(),
    });
    expect(await get('/api/alerts/counts')).toMatchObject({
      firing: 1,
      acknowledged: 1,
      needs_attention: 1,
    });
    const again = await post(`/api/alerts/${a}/ack`);
    expect(again.status).toBe(409);
    expect(again.json.detail).toBe(
      `alert ${a} is acknowledged; only a firing alert can be acknowledged`,
    );
    expect((await post(`/api/alerts/${a}/snooze`, { minutes: 15 })).status).toBe(409);
  });

  it('snooze takes only the allowed lengths and returns to firing when it ends', async () => {
    for (const minutes of [7, -1, 'x', 60.5, null]) {
      const r = await post(`/api/alerts/${b}/snooze`, { minutes });
      expect(r.status).toBe(422);
      expect(r.json.detail[0].loc).toEqual(['body', 'minutes']);
    }
    const snoozed = await post(`/api/alerts/${b}/snooze`, { minutes: 60 });
    expect(snoozed.json).toMatchObject({
      status: 'snoozed',
      snoozed_until: new Date(base + 60 * MIN).toISOString(),
    });
    expect(await get('/api/alerts/counts')).toMatchObject({
      firing: 0,
      snoozed: 1,
      needs_attention: 0,
    });
    expect((await get('/api/alerts/inbox?status=snoozed')).map((x: any) => x.id)).toEqual([b]);
    offset = 61 * MIN;
    expect((await get('/api/alerts/inbox?status=firing')).map((x: any) => x.id)).toEqual([b]);
    expect(await get('/api/alerts/counts')).toMatchObject({
      firing: 1,
      snoozed: 0,
      needs_attention: 1,
    });
  });

  it('a snooze that ends while the server is down is firing after the restart', async () => {
    expect((await post(`/api/alerts/${b}/snooze`, { minutes: 15 })).json.status).toBe('snoozed');
    await server.stop();
    server = await start(); // real clock now: 76 minutes past the snooze's end
    expect((await get('/api/alerts/inbox?status=firing')).map((x: any) => x.id)).toEqual([b]);
    // The waker ran at start and rewrote the row too.
    const [row] = (await get('/api/alerts/inbox?status=all')).filter((x: any) => x.id === b);
    expect(row).toMatchObject({ status: 'firing', snoozed_until: null });
  }, 180_000);

  it('resolved alerts leave the active view, stay listable, and cannot be resolved twice', async () => {
    expect((await post(`/api/alerts/${a}/resolve`)).json.status).toBe('resolved');
    expect((await post(`/api/alerts/${a}/resolve`)).status).toBe(409);
    expect((await get('/api/alerts/inbox')).map((x: any) => x.id)).toEqual([b]);
    expect((await get('/api/alerts/inbox?status=resolved')).map((x: any) => x.id)).toEqual([a]);
    expect((await post('/api/alerts/00000000-0000-0000-0000-000000000000/ack')).status).toBe(404);
  });

  it('CLI: spyglass alerts --json and alerts ack through --url', async () => {
    const list = await runCliInProcess(['alerts', '--json', '--url', server.httpUrl]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((x: any) => x.id)).toEqual([b]);
    const table = await runCliInProcess(['alerts', '--status', 'all', '--url', server.httpUrl]);
    expect(table.stdout).toContain(a);
    expect(table.stdout).toContain('resolved');
    const acked = await runCliInProcess(['alerts', 'ack', b, '--url', server.httpUrl]);
    expect(acked.stdout.trim()).toBe(`alert ${b} is acknowledged`);
    const bad = await runCliInProcess([
      'alerts',
      'snooze',
      b,
      '--minutes',
      '7',
      '--url',
      server.httpUrl,
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--minutes');
  }, 180_000);
});
