import { once } from 'node:events';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { openWs } from '../helpers/graphql-ws.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { startTestServer } from '../helpers/server.ts';

it('a stop does not wait for the dashboard: open GraphQL WebSockets are closed with 1001 first', async () => {
  const server = await startTestServer();
  const ws = await openWs(server.httpUrl);
  // An open subscription and an idle connection: neither may hold the stop.
  const sub = ws.subscribe('subscription { spanNew { spanId } }');
  const idle = await openWs(server.httpUrl);
  await server.dispose();
  expect(await ws.closed).toMatchObject({ code: 1001 });
  expect(await idle.closed).toMatchObject({ code: 1001 });
  await sub.ended;
});

it('a connection that never sent a request is closed at once, not held until the grace cuts it', async () => {
  const log = captureLog();
  const server = await startTestServer({}, log.logger);
  const { port } = new URL(server.httpUrl);
  // A client that connects and says nothing (a pool warming a socket, or a slow client).
  const silent = connect(Number(port), '127.0.0.1');
  await once(silent, 'connect');
  const closed = once(silent, 'close');
  // A keep-alive connection that served a request closes too, as before.
  const used = await fetch(`${server.httpUrl}/api/liveness`);
  expect(used.status).toBe(200);
  await server.dispose();
  await closed;
  expect(log.lines.map((l) => l.msg)).not.toContainEqual(
    expect.stringContaining('cutting the connections'),
  );
  expect(log.lines.map((l) => l.msg)).not.toContainEqual(
    expect.stringContaining('shutdown still waiting'),
  );
});
