import type { Check, Finding } from '../types.ts';
import { findingOf, nameWords, toolText, type Rule } from './rule.ts';

/**
 * OWASP-MCP-05 from tool names and input schemas: where an agent can hand a server something to
 * run, fetch or open. Real injection lives in handlers we cannot see; these rules mark the surface
 * an operator should review, so they are medium at most. One finding per tool and rule, naming
 * every matching parameter (dotted paths for nested ones).
 */
const base = { category: 'OWASP-MCP-05', kind: 'owasp' } as const;
export const EXEC_RULES = {
  toolName: {
    ...base,
    id: 'exec.tool-name',
    title: 'Tool executes commands or code',
    remediation:
      'Run the server in a sandbox (container, restricted user, allow-listed commands) and require confirmation for this tool.',
  },
  commandParam: {
    ...base,
    id: 'exec.command-param',
    title: 'Parameter takes a command, script or query',
    remediation:
      'Constrain the parameter (enum or pattern of allowed values) or replace it with structured parameters; make sure the server never passes it to a shell.',
  },
  urlParam: {
    ...base,
    id: 'exec.url-param',
    title: 'Parameter takes a URL (request forgery surface)',
    remediation:
      'Restrict the hosts the server may fetch (allow-list) and block private and metadata addresses.',
  },
  pathParam: {
    ...base,
    id: 'exec.path-param',
    title: 'Parameter takes a file path',
    remediation:
      'Confine the server to allowed directories and resolve symlinks before checking them.',
  },
} satisfies Record<string, Rule>;

const EXEC_WORDS = new Set([
  'exec',
  'execute',
  'shell',
  'bash',
  'zsh',
  'sh',
  'powershell',
  'pwsh',
  'cmd',
  'terminal',
  'eval',
  'spawn',
  'subprocess',
  'sql',
]);
const RUN_OBJECTS = new Set([
  'command',
  'commands',
  'script',
  'code',
  'query',
  'process',
  'program',
]);
const COMMAND_PARAM = new Set([
  'command',
  'cmd',
  'commands',
  'script',
  'code',
  'sql',
  'shell',
  'expression',
  'statement',
  'program',
]);
const QUERY_LANGUAGE = /\b(?:sql|database|db|cypher|graphql|sparql|postgres|mysql|sqlite)\b/i;
const URL_PARAM = new Set(['url', 'uri', 'href', 'endpoint', 'webhook', 'link']);
const PATH_PARAM = new Set([
  'path',
  'file',
  'filename',
  'filepath',
  'dir',
  'directory',
  'folder',
  'paths',
  'files',
]);

function isExecName(name: string): boolean {
  const words = nameWords(name);
  return (
    words.some((w) => EXEC_WORDS.has(w)) ||
    (words.includes('run') && words.some((w) => RUN_OBJECTS.has(w)))
  );
}

interface Param {
  path: string;
  schema: Record<string, unknown>;
}

/** Every named property of an input schema, nested objects and array items included (bounded depth). */
function params(schema: unknown, prefix = '', depth = 0): Param[] {
  if (!schema || typeof schema !== 'object' || depth > 6) return [];
  const s = schema as Record<string, unknown>;
  const out: Param[] = [];
  const props = s.properties;
  if (props && typeof props === 'object') {
    for (const [key, sub] of Object.entries(props as Record<string, unknown>)) {
      if (!sub || typeof sub !== 'object') continue;
      const path = prefix ? `${prefix}.${key}` : key;
      out.push({ path, schema: sub as Record<string, unknown> }, ...params(sub, path, depth + 1));
    }
  }
  if (s.items) out.push(...params(s.items, `${prefix}[]`, depth + 1));
  return out;
}

const lastWord = (path: string) => nameWords(path.split('.').pop() ?? '').pop() ?? '';
const unbounded = (s: Record<string, unknown>) =>
  s.enum === undefined && s.const === undefined && s.pattern === undefined;

export const execCheck: Check = ({ observation }) => {
  const out: Finding[] = [];
  for (const tool of observation.tools) {
    const { name } = toolText(tool);
    if (isExecName(name))
      out.push(
        findingOf(EXEC_RULES.toolName, {
          severity: 'medium',
          toolName: name,
          location: `tools.${name}`,
          evidence: name,
          description: `Tool ${name} is named like a command, code or SQL executor.`,
        }),
      );
    const all = params(tool.inputSchema);
    const at = (p: Param) => `tools.${name}.inputSchema.properties.${p.path}`;
    // `query` is mostly a search box; it counts only where the tool talks to a query language.
    const queryLanguage =
      isExecName(name) || QUERY_LANGUAGE.test(`${name} ${toolText(tool).description}`);
    const command = all.filter(
      (p) => COMMAND_PARAM.has(lastWord(p.path)) || (queryLanguage && lastWord(p.path) === 'query'),
    );
    if (command.length > 0) {
      const open = command.filter((p) => unbounded(p.schema));
      out.push(
        findingOf(EXEC_RULES.commandParam, {
          severity: open.length > 0 ? 'medium' : 'low',
          toolName: name,
          location: at(open[0] ?? (command[0] as Param)),
          evidence: command.map((p) => p.path).join(', '),
          description: `Tool ${name} takes ${command.map((p) => p.path).join(', ')}${open.length > 0 ? ' as free text (no enum or pattern)' : ', constrained by enum or pattern'}.`,
        }),
      );
    }
    const urls = all.filter(
      (p) =>
        URL_PARAM.has(lastWord(p.path)) ||
        p.schema.format === 'uri' ||
        p.schema.format === 'uri-reference' ||
        p.schema.format === 'url',
    );
    if (urls.length > 0)
      out.push(
        findingOf(EXEC_RULES.urlParam, {
          severity: 'low',
          toolName: name,
          location: at(urls[0] as Param),
          evidence: urls.map((p) => p.path).join(', '),
          description: `Tool ${name} takes a URL in ${urls.map((p) => p.path).join(', ')}; the server may fetch what the agent names.`,
        }),
      );
    const paths = all.filter((p) => PATH_PARAM.has(lastWord(p.path)));
    if (paths.length > 0)
      out.push(
        findingOf(EXEC_RULES.pathParam, {
          severity: 'low',
          toolName: name,
          location: at(paths[0] as Param),
          evidence: paths.map((p) => p.path).join(', '),
          description: `Tool ${name} takes a file path in ${paths.map((p) => p.path).join(', ')}.`,
        }),
      );
  }
  return out;
};
