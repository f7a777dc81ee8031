import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isSeq, parseDocument } from 'yaml';

/**
 * The line of each `servers:` entry (its `- name:` line) in spyglass.yaml, so SARIF results point
 * at the config that launched the server. An unreadable file gives no lines, never an error: the
 * results then carry only their logical location.
 */
export function serverLines(path: string): Map<string, number> {
  const lines = new Map<string, number>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return lines;
  }
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  const servers = doc.get('servers', true);
  if (!isSeq(servers)) return lines;
  for (const item of servers.items) {
    if (!isMap(item) || !item.range) continue;
    const name = item.get('name');
    if (typeof name === 'string' && !lines.has(name))
      lines.set(name, counter.linePos(item.range[0]).line);
  }
  return lines;
}
