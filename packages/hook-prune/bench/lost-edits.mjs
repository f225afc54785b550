// Where each lost edit's old text came from, to classify them (issue #36): for each edit line the
// report lists as lost, the newest earlier part that shows the quoted text (as the report's check
// searches: line numbers of read outputs stripped), its tool, file or command and size, how many
// tool calls before the edit, and what touched the same file in between.
//   node bench/sets.mjs second --json /tmp/second.json && node bench/lost-edits.mjs /tmp/second.json
// Keys files roughly (separators, drive letter, case, the working directory cut off): a dump for
// reading, not the keep rules' own identity.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const transcripts = path.join(root, 'fixtures/claude-code-transcripts');
const LINE_NUMBERS = /^ *\d+(?:→|\t|\| ?)/gm;
const OLD_KEYS = ['old_string', 'oldText', 'old_str', 'oldString'];

const rows = JSON.parse(readFileSync(process.argv[2], 'utf8'));
// The third, fourth and fifth sets' folders (sets.mjs): held out, so no per-edit dump of them by default.
const HELD_OUT = [
  'PackmindHub',
  'Safecast',
  'entireio-skills',
  'nakamura-shuta-tij',
  'dougnukem-orpheus',
  'punt-labs-langlearn-tts',
  'polecatspeaks-StarCar',
  'entireio-git-sync',
  'entireio-entire-graph',
  'teslamint-entirecontext',
];
const held = rows.filter((row) => HELD_OUT.some((folder) => row.session.startsWith(folder)));
if (held.length > 0 && !process.argv.includes('--held-out'))
  throw new Error('the third, fourth and fifth sets are held out: pass --held-out to dump them');

function editedTexts(input, into = []) {
  if (input === null || typeof input !== 'object') return into;
  if (Array.isArray(input)) {
    for (const item of input) editedTexts(item, into);
    return into;
  }
  for (const [key, value] of Object.entries(input)) {
    if (OLD_KEYS.includes(key) && typeof value === 'string') {
      if (value.length >= 40) into.push(value);
    } else if (key === 'edits') editedTexts(value, into);
  }
  return into;
}

const resultText = (content) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((item) => (item.type === 'text' ? item.text : '')).join('\n')
      : '';
const strings = (value, into = []) => {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (value && typeof value === 'object') for (const field of Object.values(value)) strings(field, into);
  return into;
};

function keyOf(file, cwd) {
  let key = file.replaceAll('\\', '/').replace(/^\/([a-z])\//i, '$1:/');
  if (/^[a-z]:\//i.test(key)) key = key.toLowerCase();
  const base = cwd?.replaceAll('\\', '/');
  if (base) {
    const lower = /^[a-z]:\//i.test(base) ? base.toLowerCase() : base;
    if (key.startsWith(`${lower}/`)) key = key.slice(lower.length + 1);
  }
  return key.replace(/^\.\//, '');
}
const fileOf = (input) => input?.file_path ?? input?.path ?? input?.notebook_path;
const describe = (name, input) => {
  if (name === 'Bash' || name === 'PowerShell')
    return `${name} \`${String(input?.command ?? '')
      .slice(0, 90)
      .replaceAll('\n', ' ')}\``;
  const file = fileOf(input);
  return file ? `${name} ${file}${input.offset ? ` @${input.offset}` : ''}${input.limit ? `+${input.limit}` : ''}` : name;
};

for (const row of rows) {
  if (row.lost === 0) continue;
  const lines = readFileSync(path.join(transcripts, `${row.session}.jsonl`), 'utf8').split('\n');
  // Every part in order: tool calls (with their index among calls) and tool results.
  const calls = new Map();
  const parts = [];
  let cwd;
  let callCount = 0;
  const prompts = [];
  for (let at = 0; at < lines.length; at++) {
    if (!lines[at]) continue;
    let entry;
    try {
      entry = JSON.parse(lines[at]);
    } catch {
      continue;
    }
    cwd ??= entry.cwd;
    const content = entry.message?.content;
    if (entry.type === 'user' && typeof content === 'string') prompts.push({ line: at + 1, text: content });
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      if (part.type === 'tool_use') {
        const call = { line: at + 1, index: callCount++, name: part.name, input: part.input };
        calls.set(part.id, call);
        parts.push({ kind: 'call', line: at + 1, call, text: strings(part.input).join('\n') });
      } else if (part.type === 'tool_result') {
        const call = calls.get(part.tool_use_id);
        parts.push({
          kind: 'result',
          line: at + 1,
          call,
          text: resultText(part.content).replace(LINE_NUMBERS, ''),
          chars: resultText(part.content).length,
        });
      } else if (part.type === 'text' && entry.type === 'user') prompts.push({ line: at + 1, text: part.text });
    }
  }
  console.log(`\n## ${row.session} (${row.lost} lost of ${row.sourced}), cwd ${cwd}`);
  for (const line of row.lostLines) {
    const edit = parts.find((part) => part.kind === 'call' && part.line === line && editedTexts(part.call.input).length > 0);
    if (!edit) {
      console.log(`- line ${line}: no edit found`);
      continue;
    }
    const editFile = keyOf(fileOf(edit.call.input) ?? '?', cwd);
    for (const text of editedTexts(edit.call.input)) {
      const before = parts.filter((part) => part.line < line || (part.line === line && part !== edit && part.kind === 'result'));
      const source = before.findLast((part) => part.text.includes(text));
      if (!source) continue;
      const sourceCall = source.call;
      const between = [...calls.values()].filter((call) => call.index > (sourceCall?.index ?? -1) && call.index < edit.call.index);
      const base = path.posix.basename(editFile);
      const touching = between.filter((call) => {
        const file = fileOf(call.input);
        if (file) return keyOf(file, cwd) === editFile;
        return typeof call.input?.command === 'string' && call.input.command.includes(base);
      });
      const lastPrompt = prompts.findLast((prompt) => prompt.line < line);
      const named = lastPrompt && lastPrompt.text.includes(base) ? ' named in the latest prompt;' : '';
      console.log(
        `- line ${line} ${edit.call.name} ${editFile} (call ${edit.call.index}): from ${source.kind} ${sourceCall ? describe(sourceCall.name, sourceCall.input) : '?'} at line ${source.line} (call ${sourceCall?.index}), ${source.chars ?? source.text.length} chars, ${between.length} calls before;${named} touched between: ${touching.map((call) => `${call.index}:${describe(call.name, call.input)}`).join('; ') || 'nothing'}`,
      );
    }
  }
}
