// Gemini CLI expands a custom command (`.gemini/commands/<name>.toml`, `a/b.toml` runs as `/a:b`)
// before any hook sees the prompt: BeforeAgent gets the command's prompt, not `/name args`. This
// finds which command a prompt is the expansion of, so `prompt:submit` carries it as Claude
// Code's UserPromptExpansion does.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The `prompt` string of a command file (TOML: `"""…"""`, `'''…'''`, `"…"` or `'…'`). */
export function tomlPrompt(text: string): string | undefined {
  const match = /^\s*prompt\s*=\s*("""([\s\S]*?)"""|'''([\s\S]*?)'''|"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')/m.exec(text);
  if (!match) return undefined;
  if (match[3] !== undefined || match[5] !== undefined) return (match[3] ?? match[5])!.replace(/^\n/, '');
  const basic = match[2] !== undefined ? match[2].replace(/^\n/, '') : match[4]!;
  return basic.replace(/\\(u[0-9a-fA-F]{4}|["\\bfnrt]|\n\s*)/g, (_all, code: string) =>
    code.startsWith('u')
      ? String.fromCharCode(Number.parseInt(code.slice(1), 16))
      : code.startsWith('\n')
        ? ''
        : (({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[code] ?? code),
  );
}

function commandFiles(folder: string, prefix = '', depth = 0): Array<{ name: string; file: string }> {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (entry.isDirectory() && depth < 4) return commandFiles(path.join(folder, entry.name), `${prefix}${entry.name}:`, depth + 1);
    return entry.isFile() && entry.name.endsWith('.toml')
      ? [{ name: `${prefix}${entry.name.slice(0, -5)}`, file: path.join(folder, entry.name) }]
      : [];
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The arguments when `prompt` is `template` expanded ({{args}}, `!{…}` and `@{…}` stand for anything), else undefined. */
export function matchExpansion(template: string, prompt: string, name: string): string | undefined {
  const pieces = template.split(/(\{\{args\}\}|[!@]\{[^}]*\})/);
  const hasArgs = pieces.includes('{{args}}');
  const pattern = pieces
    .map((piece) => (piece === '{{args}}' ? '([\\s\\S]*?)' : /^[!@]\{/.test(piece) ? '[\\s\\S]*?' : escape(piece)))
    .join('');
  const match = new RegExp(`^${pattern}${hasArgs ? '' : `(?:\\n\\n/${escape(name)}(?:\\s+([\\s\\S]*))?)?`}$`).exec(
    prompt.trim() === prompt ? prompt : prompt.replace(/\s+$/, ''),
  );
  if (!match) return undefined;
  return (match.slice(1).find((group) => group !== undefined) ?? '').trim();
}

/** The project's commands first, then the user's (Gemini's own precedence), as `{ name, args }`. */
export function expandedCommand(prompt: string, projectDir: string, home: string | undefined): { name: string; args: string } | undefined {
  const folders = [path.join(projectDir, '.gemini', 'commands'), ...(home ? [path.join(home, '.gemini', 'commands')] : [])];
  for (const folder of folders)
    for (const { name, file } of commandFiles(folder)) {
      let template: string | undefined;
      try {
        template = tomlPrompt(readFileSync(file, 'utf8'));
      } catch {
        continue;
      }
      if (template === undefined || template.trim() === '') continue;
      const args = matchExpansion(template.replace(/\s+$/, ''), prompt, name);
      if (args !== undefined) return { name, args };
    }
  return undefined;
}
