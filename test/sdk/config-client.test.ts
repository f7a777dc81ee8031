import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION, LoopDetectedError, Spyglass } from '../../sdk/src/index.ts';

/** A backend whose prevention-config answers a test sets per agent; spans are accepted and ignored. */
const answers = new Map<string, { status: number; body: unknown }>();
const asked: string[] = [];
const backend = createServer((req, res) => {
  const m = /^\/api\/agents\/([^/]+)\/prevention-config/.exec(req.url ?? '');
  req.resume();
  if (!m)
    return void res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":0}');
  const agent = decodeURIComponent(m[1]!);
  asked.push(agent);
  const a = answers.get(agent) ?? { status: 404, body: { detail: 'not found' } };
  res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
  const addr = backend.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(() => new Promise<void>((r) => backend.close(() => r())));

const stored = (fields: Record<string, unknown>) => ({
  status: 200,
  body: {
    ...DEFAULT_PREVENTION,
    id: 'cfg-1',
    agent_name: '*',
    is_agent_override: false,
    updated_at: new Date().toISOString(),
    ...fields,
  },
});

/** How many identical calls a session of `agent` gets through before a loop stops it (0: none stopped in 6). */
async function callsAllowed(sg: Spyglass, agent: string): Promise<number> {
  let done = 0;
  try {
    await sg.session({ agentName: agent }, async () => {
      for (; done < 6; done++)
        await sg.guard({ serverName: 's', toolName: 'same', args: { q: 1 } }, () => 'x');
    });
    return 0;
  } catch (err) {
    expect(err).toBeInstanceOf(LoopDetectedError);
    return done;
  }
}

describe('prevention config from the backend', () => {
  const warnings: string[] = [];
  const options = () => ({
    url,
    flushIntervalMs: 60_000,
    logger: { warn: (m: string) => warnings.push(m) },
    prevention: { loop_detection: { threshold: 2, action: 'terminate' as const } },
  });

  it('a stored config wins over the constructor; nothing stored or no answer → the constructor', async () => {
    answers.set('stored', stored({ loop_threshold: 4, loop_action: 'terminate' }));
    answers.set('unset', {
      ...stored({}),
      body: {
        ...DEFAULT_PREVENTION,
        id: null,
        agent_name: 'unset',
        is_agent_override: false,
        updated_at: null,
      },
    });
    const sg = new Spyglass(options());
    expect(await callsAllowed(sg, 'stored')).toBe(3);
    expect(await callsAllowed(sg, 'unset')).toBe(1);
    expect(await callsAllowed(sg, 'missing')).toBe(1);
    expect(asked).toEqual(expect.arrayContaining(['stored', 'unset', 'missing']));
    await sg.shutdown();
  });

  it('keeps the last stored config when the backend fails, and logs the failure once', async () => {
    warnings.length = 0;
    answers.set('flaky', stored({ loop_threshold: 3, loop_action: 'terminate' }));
    const sg = new Spyglass(options());
    expect(await callsAllowed(sg, 'flaky')).toBe(2);
    answers.set('flaky', { status: 503, body: { detail: 'down' } });
    expect(await callsAllowed(sg, 'flaky')).toBe(2);
    answers.set('flaky', { status: 200, body: { loop_threshold: 'many' } });
    expect(await callsAllowed(sg, 'flaky')).toBe(2);
    expect(warnings.filter((w) => w.includes('prevention config'))).toHaveLength(1);
    // Deleted on the backend (nothing stored any more) → back to the constructor's threshold 2.
    answers.set('flaky', { status: 200, body: { ...DEFAULT_PREVENTION, id: null } });
    expect(await callsAllowed(sg, 'flaky')).toBe(1);
    await sg.shutdown();
  });

  it('a 404 (nothing stored for the agent nor as project default) means the constructor config, not a failure', async () => {
    warnings.length = 0;
    answers.set('gone', stored({ loop_threshold: 4, loop_action: 'terminate' }));
    const sg = new Spyglass(options());
    expect(await callsAllowed(sg, 'gone')).toBe(3);
    answers.set('gone', {
      status: 404,
      body: {
        detail: "no prevention config stored for agent gone nor as project default's default",
      },
    });
    expect(await callsAllowed(sg, 'gone')).toBe(1);
    expect(warnings).toEqual([]);
    await sg.shutdown();
  });

  it('rejects invalid constructor values at once, naming the field', () => {
    expect(() => new Spyglass({ prevention: { loop_detection: { threshold: 0 } } })).toThrow(
      /prevention\.loop_detection\.threshold/,
    );
    expect(() => new Spyglass({ prevention: { budget: { soft_alert_threshold_usd: 5 } } })).toThrow(
      /budget\.soft_alert_threshold_usd/,
    );
    expect(() => new Spyglass({ flushIntervalMs: -1 })).toThrow(/flushIntervalMs/);
    expect(() => new Spyglass({ url: 'ftp://x' })).toThrow(TypeError);
    expect(() => new Spyglass({ graph: { maxNodeIterations: 1.5 } })).toThrow(
      /graph\.maxNodeIterations/,
    );
  });
});
