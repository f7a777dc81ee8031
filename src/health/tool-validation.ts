import { Ajv } from 'ajv';
import { canonicalJson } from './schema-hash.ts';

/**
 * Whether the JSON Schemas a server lists can be used at all: an MCP client compiles them before it
 * can validate calls and results, and one broken schema fails the whole list for such clients
 * (mcp-notes). Compiled the way the SDK does (strict off, meta-schema not enforced); results are
 * cached by schema text, so a stable server costs one compile per distinct schema.
 */
const ajv = new Ajv({
  strict: false,
  validateSchema: false,
  allErrors: false,
  validateFormats: false,
});
const cache = new Map<string, string | null>();
const CACHE_LIMIT = 2000;

/** The first problem found, as `tool X: outputSchema: message`, or null when every schema compiles. */
export function findInvalidSchema(tools: readonly Record<string, unknown>[]): string | null {
  for (const tool of tools) {
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const schema = tool[key];
      if (schema === undefined) continue;
      const problem = compileProblem(schema);
      if (problem) return `tool ${String(tool.name)}: ${key}: ${problem}`;
    }
  }
  return null;
}

function compileProblem(schema: unknown): string | null {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    return 'not a JSON Schema object';
  const key = canonicalJson(schema);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let problem: string | null = null;
  try {
    // $id would register the schema globally in ajv; compile a copy without it.
    const { $id: _id, ...rest } = schema as Record<string, unknown>;
    ajv.compile(rest);
    ajv.removeSchema(rest); // ajv caches every compiled object; ours is the cache
  } catch (err) {
    problem = (err as Error).message.slice(0, 300);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, problem);
  return problem;
}
