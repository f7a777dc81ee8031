/**
 * The stdio launch as a list of words, each with where it came from (`command`, `args[2]`), with
 * the wrappers that only pass a command on peeled off: `env K=V cmd`, `sh -c "cmd"`, `cmd /c cmd`.
 * Shell scripts are split on whitespace and cut at the first `|`, `;` or `&&`: good enough to
 * find which package a wrapper starts, never used to run anything.
 */
export interface Word {
  text: string;
  location: string;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ash', 'ksh', 'cmd', 'cmd.exe']);

export function launchWords(
  command: string | undefined,
  args: readonly string[] | undefined,
): Word[] {
  if (!command) return [];
  const words: Word[] = [];
  // `command: "npx -y pkg"` with no args is a common config mistake that clients still run through a shell.
  if (/\s/.test(command.trim()) && (args ?? []).length === 0)
    words.push(...splitScript(command, 'command'));
  else words.push({ text: command, location: 'command' });
  (args ?? []).forEach((text, i) => words.push({ text, location: `args[${i}]` }));
  return peel(words);
}

/** The program's base name without a Windows extension: `/usr/bin/npx` and `npx.cmd` are `npx`. */
export function programName(word: Word | undefined): string {
  return (word?.text.split(/[\\/]/).pop() ?? '').replace(/\.(cmd|exe|bat|ps1)$/i, '').toLowerCase();
}

function peel(words: Word[]): Word[] {
  const program = programName(words[0]);
  if (program === 'env') {
    let i = 1;
    while (
      i < words.length &&
      (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]?.text ?? '') || words[i]?.text.startsWith('-'))
    )
      i += 1;
    return peel(words.slice(i));
  }
  if (SHELLS.has(program)) {
    const flag = words.findIndex((w, i) => i > 0 && /^(-[a-z]*c|\/c|\/k)$/i.test(w.text));
    const script = flag > 0 ? words[flag + 1] : undefined;
    if (script) return peel(splitScript(script.text, script.location));
  }
  return words;
}

function splitScript(script: string, location: string): Word[] {
  const first = script.split(/\|\||&&|[|;&\n]/)[0] ?? '';
  return first
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((t) => ({ text: t.replace(/^(['"])(.*)\1$/, '$2'), location }));
}
