import { expect, it } from 'vitest';
import { openWs } from '../helpers/graphql-ws.ts';
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
