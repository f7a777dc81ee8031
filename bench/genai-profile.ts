/**
 * The realistic payload profile: spans of about 1 KB with ~20 attributes, the way GenAI
 * instrumentations emit them (OpenTelemetry gen_ai.* and mcp.* semantic conventions beside the
 * OpenInference llm.* / openinference.span.kind keys that LangChain, LlamaIndex and OpenAI Agents
 * instrumentations add). The small profile (payloads.ts) carries only what the normaliser reads;
 * this one also carries what it ignores, because real exporters send it and the server must parse
 * and skip it. Native bodies carry the same contents in their own fields (they have no attribute bag).
 */

export type PayloadProfile = 'small' | 'genai';
export const PROFILES: readonly PayloadProfile[] = ['small', 'genai'];

type AttrValue = string | number | boolean | string[];

export interface GenaiContent {
  inputArgs: Record<string, unknown> | null;
  outputResult: string | null;
  llmInput: string | null;
  llmOutput: string | null;
  /** OTLP attributes beyond the ones payloads.ts sets for every profile. */
  extraAttributes: Record<string, AttrValue>;
}

const SYSTEM_PROMPT =
  'You are a planning agent for the acme/widgets repository. Use the tools to read files, search issues and post a short summary to #eng-bugs. Never write outside /srv/data; ask before posting.';

/** Contents of an agent (LLM) span: messages of a real chat call, model and usage details. */
export function genaiAgent(
  i: number,
  agentName: string,
  sessionId: string,
  model: string,
  inputTokens: number,
  outputTokens: number,
): GenaiContent {
  const llmInput = JSON.stringify([
    { role: 'system', content: SYSTEM_PROMPT },
    {
      role: 'user',
      content: `Summarise the open issues tagged bug in acme/widgets and propose a fix order (request ${i}).`,
    },
  ]);
  const llmOutput = JSON.stringify([
    {
      role: 'assistant',
      content:
        'There are 12 open bugs. Fix first the sync engine retry loop (#812, #790), then the cache eviction race (#771); the rest are UI issues.',
      finish_reason: 'stop',
    },
  ]);
  return {
    inputArgs: null,
    outputResult: null,
    llmInput,
    llmOutput,
    extraAttributes: {
      'gen_ai.provider.name': 'openai',
      'gen_ai.response.model': `${model}-2024-07-18`,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 1024,
      'gen_ai.response.id': `chatcmpl-B7x${String(i).padStart(9, '0')}Qz`,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.agent.id': `agent_${agentName}_01`,
      'server.address': 'api.openai.com',
      'server.port': 443,
      'openinference.span.kind': 'AGENT',
      'llm.model_name': model,
      'llm.token_count.prompt': inputTokens,
      'llm.token_count.completion': outputTokens,
      'llm.token_count.total': inputTokens + outputTokens,
      'session.id': sessionId,
    },
  };
}

/** Contents of an MCP tool call span: arguments, a result of a few lines, the MCP session details. */
export function genaiTool(
  i: number,
  serverName: string,
  toolName: string,
  sessionId: string,
  failed: boolean,
): GenaiContent {
  const inputArgs = {
    path: `/srv/data/projects/acme/widgets/src/sync/engine-${i}.ts`,
    repo: 'acme/widgets',
    query: 'label:bug state:open sort:created-asc',
    max_bytes: 65536,
    encoding: 'utf-8',
    per_page: 50,
  };
  const outputResult = failed
    ? null
    : JSON.stringify({
        content: [
          {
            type: 'text',
            text: `export async function retrySync(attempt: number) {\n  // file ${i}: backoff doubles up to 30 s\n  const delay = Math.min(30_000, 2 ** attempt * 100);\n  await sleep(delay);\n  return engine.sync();\n}\n`,
          },
        ],
        isError: false,
      });
  return {
    inputArgs,
    outputResult,
    llmInput: null,
    llmOutput: null,
    extraAttributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': toolName,
      'gen_ai.tool.type': 'extension',
      'gen_ai.tool.call.id': `call_${String(i).padStart(8, '0')}aZ3kQ`,
      'mcp.session.id': `mcp-${sessionId}`,
      'mcp.protocol.version': '2025-06-18',
      'jsonrpc.request.id': String(i),
      'network.protocol.name': 'stdio',
      'openinference.span.kind': 'TOOL',
      'tool.name': toolName,
      'server.address': `${serverName}.mcp.internal`,
    },
  };
}
