import { kind, type Node } from './coerce.ts';
import { ENV_SETTINGS } from './env.ts';
import { ConfigSchema } from './schema.ts';
import { expectation } from './validate.ts';

/**
 * docs/configuration.md, generated from the schema (`npm run config-doc`;
 * test/config/reference.test.ts fails when the committed file differs), so that the reference
 * lists every key and environment variable the loader reads, and no other.
 */
export function configReference(): string {
  const top = ConfigSchema.properties as unknown as Record<string, Node>;
  const scalars = Object.entries(top).filter(([, s]) => !['section', 'objects'].includes(kind(s)));
  const out = [HEADER, '## Top level', '', ...table(scalars, [])];
  for (const [key, s] of Object.entries(top)) {
    if (kind(s) === 'section') {
      out.push(`## \`${key}\`: ${s.description ?? ''}`, '');
      const props = Object.entries(s.properties as Record<string, Node>);
      out.push(...table(props, [key]));
      for (const [sub, p] of props)
        if (kind(p) === 'objects') out.push(...items(`${key}.${sub}[]`, p));
    } else if (kind(s) === 'objects') {
      out.push(...items(`${key}[]`, s));
    }
  }
  return out.join('\n');
}

const HEADER = `# Configuration

<!-- Generated from src/config/schema.ts by \`npm run config-doc\`; do not edit by hand. -->

Settings come from, in order: their defaults, the configuration file, then the environment. The
file is \`spyglass.yaml\` in the working directory, or the one \`SPYGLASS_CONFIG\` names; YAML or
JSON. Every problem (YAML syntax, an unknown key, a wrong type or range, settings that contradict
each other) is reported at once at start, naming the key and, for a value from the environment,
the variable; \`spyglass serve\` then exits with code 2 before opening anything.

Every setting in the tables below with a variable can be set from the environment by one rule:
\`SPYGLASS_<SECTION>_<KEY>\` in upper snake case (\`ingest.max_body_bytes\` is
\`SPYGLASS_INGEST_MAX_BODY_BYTES\`), \`SPYGLASS_<KEY>\` at the top level. Lists are
comma-separated there (and may be in the file). An empty variable counts as unset. Older names,
listed as aliases, keep working; when both are set, the rule's name wins. The environment wins
over the file, except \`alerts.chat_webhook\` (docs/alerts.md: the file's webhook is used first).
Lists of entries (\`servers\`, \`costs.rules\`) and maps are set in the file only.
`;

function table(rows: [string, Node][], section: string[]): string[] {
  const env = (key: string) => {
    const s = ENV_SETTINGS.find((e) => e.path.join('.') === [...section, key].join('.'));
    if (!s) return '';
    const alias = s.alias.length ? ` (alias ${s.alias.map((a) => `\`${a}\``).join(', ')})` : '';
    return `\`${s.name}\`${alias}`;
  };
  const lines = ['| key | environment | value | default | meaning |', '|---|---|---|---|---|'];
  for (const [key, s] of rows)
    lines.push(`| \`${key}\` | ${env(key)} | ${cell(expectation(s))} | ${dflt(s)} | ${cell(s)} |`);
  return [...lines, ''];
}

function items(where: string, s: Node): string[] {
  const item = s.items as Node;
  const required = new Set((item.required as string[] | undefined) ?? []);
  const lines = [
    `${where.includes('.') ? '###' : '##'} \`${where}\`: ${s.description ?? ''}`,
    '',
    'Set in the file only, one entry per item.',
    '',
    '| key | value | default | required | meaning |',
    '|---|---|---|---|---|',
  ];
  for (const [key, p] of Object.entries(item.properties as Record<string, Node>)) {
    const must = required.has(key) && p.default === undefined ? 'yes' : '';
    lines.push(`| \`${key}\` | ${cell(expectation(p))} | ${dflt(p)} | ${must} | ${cell(p)} |`);
  }
  return [...lines, ''];
}

function dflt(s: Node): string {
  if (s.computed) return cell(s.computed);
  if (s.default === undefined) return '';
  if (Array.isArray(s.default) && s.default.length === 0) return 'none';
  return `\`${Array.isArray(s.default) ? s.default.join(',') : String(s.default)}\``;
}

/** A table cell: the description (or given text) with pipes escaped. */
function cell(v: Node | string): string {
  const text = typeof v === 'string' ? v : (v.description ?? '');
  return text.replace(/\|/g, '\\|');
}
