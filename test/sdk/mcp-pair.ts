import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * An in-process MCP server and a connected client over InMemoryTransport (no sockets, no child):
 * `echo` answers its `message`, `fail` answers an `isError` result, `boom` rejects the request,
 * `slow` answers after 500 ms.
 */
export async function mcpPair(): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new Server(
    { name: 'sdk-test', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ['echo', 'fail', 'boom', 'slow'].map((name) => ({
      name,
      inputSchema: { type: 'object' as const, properties: { message: { type: 'string' } } },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const message = String(req.params.arguments?.message ?? '');
    if (req.params.name === 'fail')
      return { isError: true, content: [{ type: 'text', text: `cannot do ${message}` }] };
    if (req.params.name === 'boom') throw new Error('tool crashed');
    if (req.params.name === 'slow') await new Promise((r) => setTimeout(r, 500));
    return { content: [{ type: 'text', text: `Echo: ${message}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'sdk-test-agent', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
