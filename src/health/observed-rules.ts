import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { ObservedToolsInput } from '../model/health.ts';

/** The most tools one posted list may hold, and the longest server, agent and tool names. */
export const MAX_OBSERVED_TOOLS = 2000;
const MAX_NAME = 512;

/**
 * The rules of an observed tool list, the same for every adapter: names are identifiers the
 * database stores as they are (1 to 512 characters; a NUL, which PostgreSQL refuses, is not one),
 * and a list holds at most MAX_OBSERVED_TOOLS tools. Every problem at once, named as the REST body
 * spells it. Answers the agent name to store (an empty one is none).
 */
export function checkObserved(serverName: string, input: ObservedToolsInput): string | null {
  const issues: ValidationIssue[] = [];
  if (serverName.length > MAX_NAME)
    issues.push({
      loc: ['path', 'name'],
      msg: `Input should have at most ${MAX_NAME} characters`,
      type: 'string_too_long',
    });
  if (serverName.includes('\0'))
    issues.push({
      loc: ['path', 'name'],
      msg: 'Input should not contain NUL',
      type: 'value_error',
    });
  for (const [field, v] of [
    ['agent_name', input.agentName],
    ['project_id', input.projectId],
  ] as const)
    if (v && (v.length > MAX_NAME || v.includes('\0')))
      issues.push({
        loc: ['body', field],
        msg: `Input should be a string of at most ${MAX_NAME} characters, without NUL`,
        type: 'string_type',
      });
  const { tools } = input;
  if (tools.length > MAX_OBSERVED_TOOLS)
    issues.push({
      loc: ['body', 'tools'],
      msg: `A list holds at most ${MAX_OBSERVED_TOOLS} tools (got ${tools.length})`,
      type: 'too_long',
    });
  else
    tools.forEach((t, i) => {
      if (t.name === '' || t.name.length > MAX_NAME || t.name.includes('\0'))
        issues.push({
          loc: ['body', 'tools', i, 'name'],
          msg: `Input should be a tool with a name of 1 to ${MAX_NAME} characters`,
          type: 'value_error',
        });
    });
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid tool list', { issues });
  return input.agentName || null;
}
