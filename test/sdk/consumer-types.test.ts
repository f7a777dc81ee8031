import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerDir } from './consumer-dir.ts';

const TSC = resolve(import.meta.dirname, '../../node_modules/typescript/bin/tsc');
const dir = consumerDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Uses every public name of spyglass-agent-sdk the way a strict NodeNext TypeScript project would. */
const CONSUMER = `import {
  Spyglass, PreventionError, LoopDetectedError, BudgetExceededError, CircuitBreakerOpenError, GraphLoopError,
  HEALTH_TAGS, DEFAULT_PREVENTION,
  type SpyglassOptions, type SessionOptions, type Session, type LlmCall, type GuardCall, type PricingTable,
  type ModelPrice, type GraphOptions, type SdkLogger, type ExportStats, type HealthTag, type GuardName,
  type PreventionDetails, type PreventionConfig, type NestedPreventionConfig, type McpToolClient, type WrapMcpOptions,
} from 'spyglass-agent-sdk';

const price: ModelPrice = { inputPer1M: 1, outputPer1M: 2 };
const pricing: PricingTable = { models: { 'my-model': price }, tools: { 'calc/*': 0.001 } };
const graph: GraphOptions = { maxNodeIterations: 3, maxCostUsd: 1 };
const logger: SdkLogger = { warn: (message: string, details?: Record<string, unknown>) => void [message, details] };
const prevention: NestedPreventionConfig = { loop_detection: { threshold: 3, action: 'terminate' }, budget: { max_cost_usd: 2 } };
const options: SpyglassOptions = { url: 'http://127.0.0.1:1', apiKey: 'k', projectId: 'p', agentName: 'a', prevention, pricing, graph, flushIntervalMs: 100, maxBufferedSpans: 10, configRefreshMs: 1000, logger, clock: () => Date.now() };
const sg = new Spyglass(options);
const client: McpToolClient = { callTool: async (params) => ({ content: [{ type: 'text', text: params.name }] }) };
const wrapOptions: WrapMcpOptions = { serverName: 'echo' };
const wrapped: McpToolClient = sg.wrapMcp(client, wrapOptions);
const sessionOptions: SessionOptions = { agentName: 'planner', sessionId: 's-1' };
const call: GuardCall = { serverName: 'calc', toolName: 'add', args: { a: 1 }, costUsd: 0.01 };
const llm: LlmCall = { model: 'my-model', inputTokens: 10, outputTokens: 5, prompt: 'p', completion: 'c' };

async function main(): Promise<number> {
  const total: number = await sg.session(sessionOptions, async (session: Session) => {
    const cost: number = session.recordLlm(llm);
    const tag: HealthTag | null = session.healthTag;
    const ids: string[] = [session.sessionId, session.traceId, session.agentName, session.spanId];
    await wrapped.callTool({ name: 'echo', arguments: { message: 'hi' } });
    const n: number = await sg.guard(call, () => 1);
    await session.handoff('writer', async (child: Session) => child.steps);
    await session.node('plan', () => session.costUsd);
    return cost + n + ids.length + (tag === null ? 0 : 1);
  });
  await sg.flush();
  const stats: ExportStats = sg.stats();
  await sg.shutdown();
  return total + stats.sent;
}

function describeError(e: unknown): string {
  if (e instanceof LoopDetectedError || e instanceof GraphLoopError || e instanceof BudgetExceededError || e instanceof CircuitBreakerOpenError) {
    const d: PreventionDetails = e.details;
    const g: GuardName = d.guard;
    return g;
  }
  return e instanceof PreventionError ? e.healthTag : 'other';
}

const tags: readonly HealthTag[] = HEALTH_TAGS;
const defaults: Readonly<PreventionConfig> = DEFAULT_PREVENTION;
void main().catch((e: unknown) => describeError(e));
void [tags, defaults];
`;

/** A misuse the compiler must refuse: the check is real. */
const BAD = `import { Spyglass } from 'spyglass-agent-sdk';\nnew Spyglass({ flushIntervalMs: 'soon' });\n`;

describe('a TypeScript consumer of spyglass-agent-sdk', () => {
  /**
   * tsc's report of one strict NodeNext project holding both files (one compiler run: most of its
   * time is loading the compiler and the declarations), one entry per diagnostic.
   */
  let diagnostics: string[];
  beforeAll(async () => {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          types: [],
          skipLibCheck: false,
        },
        files: ['consumer.ts', 'bad.ts'],
      }),
    );
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    writeFileSync(join(dir, 'bad.ts'), BAD);
    const out = await promisify(execFile)(process.execPath, [TSC, '-p', dir], {
      cwd: dir,
      timeout: 120_000,
    }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    // A diagnostic starts at the beginning of a line; its continuation lines are indented.
    diagnostics = out.split(/\n(?=\S)/).filter((d) => d.trim() !== '');
  }, 150_000);

  it('compiles with tsc (strict, NodeNext) against the shipped declarations', () => {
    expect(diagnostics.filter((d) => !d.startsWith('bad.ts('))).toEqual([]);
  });

  it('fails to compile a misuse (the check is real)', () => {
    expect(diagnostics.join('\n')).toContain(
      "bad.ts(2,16): error TS2322: Type 'string' is not assignable to type 'number'",
    );
  });
});
