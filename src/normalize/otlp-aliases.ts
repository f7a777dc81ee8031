/**
 * Attribute names per span field, first present wins (decisions §3), followed by the common
 * OpenInference and OpenLLMetry (Traceloop) spellings so their instrumentations work unchanged.
 */
export const ALIASES = {
  serverName: ['mcp.server.name', 'server.address', 'gen_ai.provider.name', 'gen_ai.system'],
  toolName: ['mcp.tool.name', 'gen_ai.tool.name', 'tool.name'],
  agentName: ['gen_ai.agent.name', 'agent.name', 'traceloop.entity.name'],
  sessionId: ['gen_ai.conversation.id', 'session.id', 'traceloop.association.properties.session_id'],
  inputArgs: ['gen_ai.tool.call.arguments', 'mcp.request.arguments', 'input.value', 'traceloop.entity.input'],
  outputResult: ['gen_ai.tool.call.result', 'output.value', 'traceloop.entity.output'],
  llmInput: ['gen_ai.prompt', 'gen_ai.input.messages', 'llm.input_messages'],
  llmOutput: ['gen_ai.completion', 'gen_ai.output.messages', 'llm.output_messages'],
  inputTokens: ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt'],
  outputTokens: ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion'],
  modelId: ['gen_ai.request.model', 'gen_ai.response.model', 'llm.model_name'],
  errorType: ['error.type', 'exception.type'],
} as const;

/** gen_ai.operation.name values that make a span an agent (LLM) span. */
export const AGENT_OPERATIONS = new Set(['invoke_agent', 'create_agent', 'chat', 'text_completion', 'generate_content']);

/** OpenInference / OpenLLMetry span kinds that are selected, with the span type they map to. */
export const FRAMEWORK_KINDS: Record<string, 'tool_call' | 'agent'> = {
  TOOL: 'tool_call',
  AGENT: 'agent',
  LLM: 'agent',
  tool: 'tool_call',
  agent: 'agent',
};
export const FRAMEWORK_KIND_KEYS = ['openinference.span.kind', 'traceloop.span.kind'] as const;

/** Spyglass's own attributes, for what no convention names yet (SDK guards, handoffs). */
export const OWN = {
  spanType: 'spyglass.span_type',
  healthTag: 'spyglass.health_tag',
  projectId: 'spyglass.project_id',
  handoffTarget: 'spyglass.handoff.target',
} as const;
