import Table from 'cli-table3';
import { escapeHiddenJson, escapeLine } from '../security/poisoning/text.ts';
import type { CliOut } from './io.ts';

/**
 * Everything the CLI prints may quote an MCP server (tool names, errors, drift details), so every
 * string goes through one escaping (poisoning/text.ts, the one findings' evidence uses): tables and
 * lines show hidden characters as `\u{1B}`, JSON carries them as `\u001b` escapes. A terminal never
 * receives an escape sequence, a bidi override or a control character from a server.
 */

/** A table cell of several lines (a check's drift changes): each line is escaped on its own. */
export class Lines {
  constructor(readonly lines: readonly string[]) {}
}

/** Prints rows as a table for people, or as JSON with --json for scripts. */
export function printRows(
  out: CliOut,
  rows: Record<string, unknown>[],
  columns: string[],
  json: boolean,
): void {
  if (json) {
    printJson(out, rows);
    return;
  }
  if (rows.length === 0) {
    out.write('(none)\n');
    return;
  }
  const table = new Table({ head: columns, style: { head: [], border: [] } });
  for (const row of rows) table.push(columns.map((c) => format(row[c])));
  out.write(`${table.toString()}\n`);
}

export function printJson(out: CliOut, value: unknown): void {
  out.write(`${jsonText(value, 2)}\n`);
}

/** JSON.stringify with hidden characters as JSON escapes (monitor's JSON lines use it too). */
export function jsonText(value: unknown, indent?: number): string {
  return escapeHiddenJson(JSON.stringify(value, null, indent) ?? 'null');
}

/** One line of text that may quote a server, made safe for a terminal. */
export { escapeLine };

function format(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (v instanceof Lines) return v.lines.map(escapeLine).join('\n');
  return escapeLine(typeof v === 'object' ? JSON.stringify(v) : String(v));
}
