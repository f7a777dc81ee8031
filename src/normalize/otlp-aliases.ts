/**
 * Attribute names per span field, first present wins (docs/ingest.md#otlp-mapping): the OpenTelemetry GenAI
 * semantic conventions first, then the OpenInference and OpenLLMetry (Traceloop) spellings, so
 * their instrumentations work unchanged. docs/ingest.md#otlp-mapping lists them per convention.
 */
export const ALIASES = {
  serverName: [
    'mcp.server.name',
    'server.address',
    'gen_ai.provider.name',
    'gen_ai.system',
    'llm.provider',
    'llm.system',
    'llm.vendor',
  ],
  // OpenLLMetry names a tool span's tool, and an agent or workflow span's agent, traceloop.entity.name.
  toolName: ['mcp.tool.name', 'gen_ai.tool.name', 'tool.name', 'traceloop.entity.name'],
  agentName: ['gen_ai.agent.name', 'gen_ai.agent.id', 'agent.name'],
  /** OpenLLMetry: on spans of these traceloop.span.kind values traceloop.entity.name is the agent. */
  traceloopAgentKinds: ['agent', 'workflow'],
  /** Then the workflow an OpenLLMetry span runs in. */
  workflowName: ['traceloop.workflow.name'],
  // OpenInference's session.id is the session an application set; it wins over the conversation (issue 24 #14).
  sessionId: [
    'session.id',
    'gen_ai.conversation.id',
    'traceloop.association.properties.session_id',
  ],
  inputArgs: [
    'gen_ai.tool.call.arguments',
    'mcp.request.arguments',
    'input.value',
    'traceloop.entity.input',
  ],
  outputResult: ['gen_ai.tool.call.result', 'output.value', 'traceloop.entity.output'],
  llmInput: ['gen_ai.prompt', 'gen_ai.input.messages', 'llm.input_messages', 'llm.prompts'],
  llmOutput: [
    'gen_ai.completion',
    'gen_ai.output.messages',
    'llm.output_messages',
    'llm.completions',
  ],
  inputTokens: [
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.prompt_tokens',
    'llm.token_count.prompt',
    'llm.usage.prompt_tokens',
  ],
  outputTokens: [
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
  ],
  /** Only when neither input nor output tokens are given (an embedding call): counted as input. */
  totalTokens: ['gen_ai.usage.total_tokens', 'llm.token_count.total', 'llm.usage.total_tokens'],
  modelId: [
    'gen_ai.request.model',
    'gen_ai.response.model',
    'llm.model_name',
    'llm.request.model_name',
    'llm.response.model_name',
    'llm.request.model',
    'llm.response.model',
    'embedding.model_name',
  ],
  errorType: ['error.type', 'exception.type'],
} as const;

/**
 * Cache and thinking tokens per convention. Every convention counts them inside its input (output,
 * for reasoning) token count; the normaliser takes them out of those, since the span model counts
 * them apart and prices them at the model's cache (and output) prices.
 */
export const CACHE_TOKEN_ALIASES = {
  cacheReadTokens: [
    'gen_ai.usage.cache_read.input_tokens',
    'gen_ai.usage.cache_read_input_tokens',
    'llm.token_count.prompt_details.cache_read',
    'llm.usage.cache_read_input_tokens',
  ],
  cacheCreationTokens: [
    'gen_ai.usage.cache_creation.input_tokens',
    'gen_ai.usage.cache_creation_input_tokens',
    'llm.token_count.prompt_details.cache_write',
    'llm.usage.cache_creation_input_tokens',
  ],
  thinkingTokens: [
    'gen_ai.usage.reasoning.output_tokens',
    'llm.token_count.completion_details.reasoning',
    'gen_ai.usage.reasoning_tokens',
  ],
} as const;

/**
 * Message lists some instrumentations flatten into one attribute per field
 * (`gen_ai.prompt.0.content`, `llm.input_messages.0.message.role`); they are put back together.
 * `strip` is the prefix each message's keys carry (OpenInference nests them under `message.`).
 */
export const FLATTENED_MESSAGES = {
  llmInput: [
    { prefix: 'gen_ai.prompt.', strip: '' },
    { prefix: 'llm.input_messages.', strip: 'message.' },
    { prefix: 'llm.prompts.', strip: '' },
  ],
  llmOutput: [
    { prefix: 'gen_ai.completion.', strip: '' },
    { prefix: 'llm.output_messages.', strip: 'message.' },
    { prefix: 'llm.completions.', strip: '' },
  ],
} as const;

/** gen_ai.operation.name values of LLM calls and agent runs: the span is an agent (LLM) span. */
export const AGENT_OPERATIONS = new Set([
  'invoke_agent',
  'create_agent',
  'invoke_workflow',
  'chat',
  'text_completion',
  'generate_content',
  'embeddings',
]);
/** gen_ai.operation.name values of tool calls. */
export const TOOL_OPERATIONS = new Set(['execute_tool', 'retrieval']);

/**
 * OpenInference (`openinference.span.kind`) and OpenLLMetry (`traceloop.span.kind`) span kinds
 * that are selected, with the span type they map to. Other kinds (GUARDRAIL, EVALUATOR, task…)
 * are not agent, LLM or tool spans.
 */
export const FRAMEWORK_KINDS: Readonly<Record<string, 'tool_call' | 'agent'>> = {
  LLM: 'agent',
  EMBEDDING: 'agent',
  AGENT: 'agent',
  CHAIN: 'agent',
  TOOL: 'tool_call',
  RETRIEVER: 'tool_call',
  agent: 'agent',
  workflow: 'agent',
  tool: 'tool_call',
};
export const FRAMEWORK_KIND_KEYS = ['openinference.span.kind', 'traceloop.span.kind'] as const;

/**
 * An attribute with one of these names or prefixes marks an LLM call even without
 * gen_ai.operation.name (OpenLLMetry's `llm.request.type`, prompts, completions, token usage).
 */
export const LLM_MARKERS = [
  'llm.request.type',
  'gen_ai.prompt',
  'gen_ai.completion',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'llm.prompts',
  'llm.completions',
] as const;
export const LLM_MARKER_PREFIXES = [
  'gen_ai.usage.',
  'llm.usage.',
  'llm.token_count.',
  'gen_ai.prompt.',
  'gen_ai.completion.',
] as const;

/** Spyglass's own attributes, for what no convention names yet (SDK guards, handoffs). */
export const OWN = {
  spanType: 'spyglass.span_type',
  healthTag: 'spyglass.health_tag',
  projectId: 'spyglass.project_id',
  handoffTarget: 'spyglass.handoff.target',
} as const;
