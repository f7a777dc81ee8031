import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopDetectedError, Spyglass } from '../../sdk/src/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  connectEverything,
  eventually,
  manualClock,
  recordingLogger,
  refusal,
  storedSession,
  storedSpans,
  toolCalls,
} from './helpers.ts';

/**
 * Backend unreachable (issue #11): the constructor's prevention values apply, the agent's calls
 * to the real server-everything are unaffected, and its spans are delivered once a Spyglass server
 * comes up on that port.
 */
let client: Client;
let server: TestServer | undefined;
let sg: Spyglass;
let port: number;
const logger = recordingLogger();

beforeAll(async () => {
  [client, port] = await Promise.all([connectEverything(), freePort()]);
  sg = new Spyglass({
    url: `http://127.0.0.1:${port}`,
    flushIntervalMs: 50,
    prevention: { loop_detection: { threshold: 3, action: 'terminate' } },
    logger,
    // Moves 1 ms per read: the spans keep their order on the server even when made within 1 ms.
    clock: manualClock(),
  });
});
afterAll(async () => {
  await sg?.shutdown();
  await client?.close();
  await server?.dispose();
});

describe('backend unreachable', () => {
  it(
    'applies the constructor defaults, leaves the agent unaffected, and delivers the spans later',
    { timeout: 60_000 },
    async () => {
      const mcp = sg.wrapMcp(client, { serverName: 'everything' });
      const sessionId = randomUUID();
      const answers: unknown[] = [];
      let err!: LoopDetectedError;
      await sg.session({ agentName: 'offline-agent', sessionId }, async () => {
        for (const m of ['a', 'b', 'x', 'x'])
          answers.push(await mcp.callTool({ name: 'echo', arguments: { message: m } }));
        err = await refusal(
          () => mcp.callTool({ name: 'echo', arguments: { message: 'x' } }),
          LoopDetectedError,
        );
      });
      // Nothing waited on the dead backend: every call answered although no span was delivered (the
      // exporter's refused attempts run in the background; the test's timeout bounds a hang).
      expect(sg.stats()).toMatchObject({ sent: 0, dropped: 0 });
      expect(answers).toEqual(
        ['a', 'b', 'x', 'x'].map((m) => ({ content: [{ type: 'text', text: `Echo: ${m}` }] })),
      );
      expect(err.details).toMatchObject({ guard: 'loop_repetition', limit: 3 });
      // flush() gives up on a dead backend instead of hanging; the spans stay buffered.
      await sg.flush();
      expect(sg.stats()).toMatchObject({ sent: 0, dropped: 0 });
      expect(sg.stats().buffered).toBeGreaterThanOrEqual(6);
      expect(logger.warnings.length).toBeGreaterThan(0);

      // The backend comes up on that port; the buffered spans arrive without any call from the agent.
      server = await startTestServer({ SPYGLASS_PORT: String(port), SPYGLASS_RATE_LIMITS: 'off' });
      const spans = await eventually(
        async () => {
          const got = await storedSpans(server!, sessionId);
          return got.length >= 6 && got;
        },
        45_000,
        'buffered spans delivered',
      );
      expect(toolCalls(spans).map((s) => [s.status, s.health_tag])).toEqual([
        ['success', null],
        ['success', null],
        ['success', null],
        ['success', null],
        ['prevented', 'loop_detected'],
      ]);
      expect(spans.find((s) => s.span_type === 'agent')).toMatchObject({
        agent_name: 'offline-agent',
        server_name: 'offline-agent',
      });
      expect((await storedSession(server, sessionId)).session.health_tag).toBe('loop_detected');
      expect(sg.stats()).toMatchObject({ buffered: 0, dropped: 0 });
      expect(sg.stats().sent).toBeGreaterThanOrEqual(6);
    },
  );
});
