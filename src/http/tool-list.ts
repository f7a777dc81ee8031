import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { ToolSnapshot } from '../model/health.ts';

/**
 * The tools of a posted list (REST's body, GraphQL's JSON list) as the domain's ToolSnapshot:
 * LangSight's `input_schema`/`output_schema` are read as MCP's `inputSchema`/`outputSchema`, other
 * fields are kept. REST's route schema has already refused items without a string name; GraphQL's
 * JSON items are checked here, each problem at `loc` + index + `name`.
 */
export function toolSnapshots(list: readonly unknown[], loc: (string | number)[]): ToolSnapshot[] {
  const issues: ValidationIssue[] = [];
  const tools = list.flatMap((raw, i) => {
    const t = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : null;
    const tool = t as Record<string, unknown> | null;
    if (typeof tool?.name !== 'string') {
      issues.push({
        loc: [...loc, i, 'name'],
        msg: 'Input should be a tool with a name',
        type: 'value_error',
      });
      return [];
    }
    return [
      {
        ...tool,
        name: tool.name,
        inputSchema: tool.inputSchema ?? tool.input_schema,
        outputSchema: tool.outputSchema ?? tool.output_schema,
      },
    ];
  });
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid tool list', { issues });
  return tools;
}
