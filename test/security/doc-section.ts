import { readFileSync } from 'node:fs';

/** The part of docs/security.md from the `## ` heading starting with `title` to the next `## ` (or `# `) heading. */
export function securityDocSection(title: string): string {
  const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
  const start = doc.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`docs/security.md has no section "## ${title}"`);
  const rest = doc.slice(start + 1);
  const end = rest.slice(3).search(/\n#{1,2} /);
  return end < 0 ? rest : rest.slice(0, end + 3);
}
