// Gemini CLI expands a custom command (`.gemini/commands/<name>.toml`, `a/b.toml` runs as `/a:b`)
// before any hook sees the prompt: BeforeAgent gets the command's prompt, not `/name args`. This
// finds which command a prompt is the expansion of, so `prompt:submit` carries it as Claude
// Code's UserPromptExpansion does.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expandedCommandOf, type SlashCommand } from '@hookwise/core/messages';

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

/**
 * Gemini's placeholders: `{{args}}` is what the user typed after the name, `!{…}` a shell
 * command's output and `@{…}` a file's content; without `{{args}}`, Gemini appends the typed
 * command after a blank line.
 */
const GEMINI_SYNTAX = { placeholder: /\{\{args\}\}|[!@]\{[^}]*\}/, args: '{{args}}', typedAfter: '\n\n' };

/** The project's commands first, then the user's (Gemini's own precedence), as `{ name, args }`. */
export function expandedCommand(prompt: string, projectDir: string, home: string | undefined): SlashCommand | undefined {
  const folders = [path.join(projectDir, '.gemini', 'commands'), ...(home ? [path.join(home, '.gemini', 'commands')] : [])];
  return expandedCommandOf(prompt, templatesIn(folders), GEMINI_SYNTAX);
}

/** The non-empty prompts of the command files in `folders`, read one at a time (the first match ends the reading). */
function* templatesIn(folders: string[]): Generator<{ name: string; template: string }> {
  for (const folder of folders)
    for (const { name, file } of commandFiles(folder)) {
      let template: string | undefined;
      try {
        template = tomlPrompt(readFileSync(file, 'utf8'));
      } catch {
        continue;
      }
      if (template !== undefined && template.trim() !== '') yield { name, template };
    }
}
