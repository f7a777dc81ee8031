// A small agent that drives the real MCP "everything" server over stdio through the Spyglass SDK,
// gets stuck asking the same thing over and over, and is stopped by loop detection.
//
//   npm install && npm start                 # the Spyglass server, in another terminal
//   node examples/mcp-agent.mjs              # SPYGLASS_URL / SPYGLASS_API_KEY if not local
//
// Plain Node ESM: `spyglass-agent-sdk` is the SDK package (sdk/, compiled to sdk/dist by `npm install`).
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoopDetectedError, Spyglass } from 'spyglass-agent-sdk';

const url = process.env.SPYGLASS_URL ?? 'http://127.0.0.1:8000';
const agentName = 'research-agent';
const everything = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

// Constructor defaults: they apply unless the backend holds a config for this agent (or project).
const sg = new Spyglass({
  url,
  agentName,
  prevention: {
    loop_detection: { threshold: 3, action: 'terminate' },
    budget: { max_cost_usd: 1 },
  },
  flushIntervalMs: 200,
});

const client = new Client({ name: 'spyglass-example-agent', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [everything, 'stdio'],
    stderr: 'ignore',
  }),
);
const mcp = sg.wrapMcp(client, { serverName: 'everything' });
const text = (result) =>
  result.content?.find((c) => c.type === 'text')?.text ?? JSON.stringify(result);

let sessionId;
try {
  await sg.session({ agentName }, async (session) => {
    sessionId = session.sessionId;
    console.log(`session ${sessionId} (agent ${agentName})`);
    console.log(
      `get-sum  → ${text(await mcp.callTool({ name: 'get-sum', arguments: { a: 19.99, b: 5.01 } }))}`,
    );
    // The model's turn (tokens and prices are the agent's to report; gpt-4o-mini is 0.15 / 0.60 per 1M).
    const cost = session.recordLlm({
      model: 'gpt-4o-mini',
      inputTokens: 1200,
      outputTokens: 300,
      prompt: 'What next?',
      completion: 'Ask again.',
    });
    console.log(
      `llm      → gpt-4o-mini, $${cost.toFixed(6)} so far $${session.costUsd.toFixed(6)}`,
    );
    // Now the agent is stuck: the same call with the same arguments, again and again.
    for (let i = 1; i <= 10; i++) {
      console.log(
        `echo #${i}  → ${text(await mcp.callTool({ name: 'echo', arguments: { message: 'are we there yet?' } }))}`,
      );
    }
  });
} catch (err) {
  if (!(err instanceof LoopDetectedError)) throw err;
  console.log(`stopped  → ${err.name} (${err.healthTag}, guard ${err.details.guard})`);
  console.log(`           ${err.message}`);
} finally {
  await client.close();
  await sg.shutdown(); // sends whatever is still buffered
}

const { sent, dropped, buffered } = sg.stats();
console.log(`spans    → ${sent} sent, ${dropped} dropped, ${buffered} still buffered`);
const apiKey = process.env.SPYGLASS_API_KEY;
const res = await fetch(`${url}/api/agents/sessions/${sessionId}`, {
  headers: apiKey ? { 'x-api-key': apiKey } : {},
}).catch(() => null);
if (res === null) {
  console.log(
    `server   → not reachable at ${url}; the agent ran anyway (fail-open); set SPYGLASS_URL if the server is elsewhere`,
  );
} else if (res.status === 401) {
  console.log(
    apiKey
      ? `server   → ${url} refused the API key (unknown, revoked or expired): set SPYGLASS_API_KEY to a valid key (spyglass api-key create)`
      : `server   → ${url} requires an API key (auth is on): set SPYGLASS_API_KEY to a key (spyglass api-key create)`,
  );
} else if (res.status === 403) {
  console.log(
    `server   → ${url} answered 403: the key in SPYGLASS_API_KEY may not read this project`,
  );
} else if (!res.ok) {
  console.log(`server   → ${url} answered HTTP ${res.status} for the session`);
} else {
  const stored = await res.json();
  console.log(
    `server   → session health_tag ${stored.session.health_tag}, ${stored.session.tool_calls} tool calls`,
  );
  console.log(
    `           curl -s ${apiKey ? '-H "x-api-key: $SPYGLASS_API_KEY" ' : ''}${url}/api/agents/sessions/${sessionId}`,
  );
}
