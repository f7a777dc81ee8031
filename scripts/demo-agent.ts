/**
 * A real agent session for the README's pictures (scripts/screenshot.ts): the Spyglass agent SDK
 * (sdk/src) wraps MCP clients talking the real protocol to three in-process MCP servers (crm,
 * docs, stripe). A support agent looks up a customer, reads the refund policy, asks its model,
 * and hands off to a billing agent whose first refund fails at the payment provider and whose
 * retry succeeds. Every span the server shows was recorded by the SDK, none written by hand.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Spyglass } from '../sdk/src/index.ts';

type Handler = (args: Record<string, unknown>) => Promise<string> | string;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An MCP server with `tools` (each answering text after `ms`), connected to a fresh client. */
async function mcpServer(name: string, tools: Record<string, [ms: number, Handler]>) {
  const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.keys(tools).map((tool) => ({
      name: tool,
      inputSchema: { type: 'object' as const },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const [ms, handle] = tools[req.params.name] ?? [0, () => 'unknown tool'];
    await pause(ms);
    try {
      return { content: [{ type: 'text', text: await handle(req.params.arguments ?? {}) }] };
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
    }
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'support-agent', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, close: () => client.close().then(() => server.close()) };
}

/** Runs the demo session against the server at `url`; returns its session id. */
export async function runDemoAgent(url: string, sessionId: string): Promise<string> {
  let refunds = 0;
  const crm = await mcpServer('crm', {
    get_customer: [180, () => '{"id":"c_1029","plan":"annual","since":"2023-04-02"}'],
    list_orders: [420, () => '[{"invoice":"in_88","amount":4900,"status":"paid"}]'],
    add_note: [120, () => 'noted'],
  });
  const docs = await mcpServer('docs', {
    search: [650, () => 'Annual plans are refundable within 30 days of renewal.'],
  });
  const stripe = await mcpServer('stripe', {
    get_invoice: [300, () => '{"id":"in_88","amount":4900,"paid":true}'],
    create_refund: [
      900,
      () => {
        if (refunds++ === 0) throw new Error('card_declined: issuer unavailable');
        return '{"refund":"re_51","status":"succeeded"}';
      },
    ],
  });
  const sg = new Spyglass({ url, agentName: 'support', flushIntervalMs: 60_000 });
  try {
    const c = sg.wrapMcp(crm.client, { serverName: 'crm' });
    const d = sg.wrapMcp(docs.client, { serverName: 'docs' });
    const s = sg.wrapMcp(stripe.client, { serverName: 'stripe' });
    const call = (client: Client, name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args });
    await sg.session({ agentName: 'support', sessionId }, async (session) => {
      await call(c, 'get_customer', { customer_id: 'c_1029' });
      await call(c, 'list_orders', { customer_id: 'c_1029', limit: 5 });
      await call(d, 'search', { query: 'refund policy annual plan' });
      session.recordLlm({
        model: 'gpt-4o',
        inputTokens: 2_310,
        outputTokens: 412,
        prompt: 'Customer c_1029 asks for a refund of in_88 (annual plan, renewed 12 days ago).',
        completion: 'Eligible under the 30-day policy: hand off to billing for the refund.',
      });
      await session.handoff('billing', async (billing) => {
        await call(s, 'get_invoice', { invoice: 'in_88' });
        const first = await call(s, 'create_refund', { invoice: 'in_88', amount: 4900 });
        if (first.isError) await call(s, 'create_refund', { invoice: 'in_88', amount: 4900 });
        billing.recordLlm({
          model: 'gpt-4o-mini',
          inputTokens: 880,
          outputTokens: 96,
          prompt: 'Summarise the refund for the ticket.',
          completion: 'Refunded 49.00 USD on in_88 (re_51) after one declined attempt.',
        });
      });
      await call(c, 'add_note', { text: 'Refunded in_88 (re_51)' });
    });
  } finally {
    await sg.shutdown();
    await Promise.all([crm.close(), docs.close(), stripe.close()]);
  }
  return sessionId;
}
