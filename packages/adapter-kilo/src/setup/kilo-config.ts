import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkSettingsEntry, type JsonObjectRead } from '@hookwise/core/host';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/**
 * `hookwise init` and `doctor` for Kilo (see ./index.ts): the plugin entry in the project's
 * Kilo config, JSON with comments. Like OpenCode, Kilo installs a bare package name from the
 * registry into its cache, so the entry is the installed folder relative to the config file;
 * Kilo loads a folder through `exports["./server"]`, else `main`.
 */
export const KILO_PACKAGE = '@hookwise/adapter-kilo';
/** The project config files Kilo reads, in the order init picks an existing one. */
const CONFIG_FILES = ['kilo.jsonc', 'kilo.json', '.kilo/kilo.jsonc', '.kilo/kilo.json'];

/** Whether an entry of `plugin` is hookwise's (by path or by name, with or without options). */
export function isHookwiseEntry(entry: unknown): boolean {
  const spec = Array.isArray(entry) ? entry[0] : entry;
  return typeof spec === 'string' && /(^|[/@])@?hookwise\/adapter-kilo(\/|@|$)|(^|\/)adapter-kilo\/?$/.test(spec);
}

/** The project's Kilo config (a new `kilo.jsonc` when it has none), comments allowed. */
export function readKiloConfig(projectDir: string): JsonObjectRead {
  const files = CONFIG_FILES.map((name) => path.join(projectDir, name));
  const file = files.find((candidate) => existsSync(candidate)) ?? files[0]!;
  if (!existsSync(file)) return { ok: true, file, value: {}, text: undefined };
  const text = readFileSync(file, 'utf8');
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true }) as unknown;
  if (errors.length > 0)
    return {
      ok: false,
      file,
      message: `${file} is not valid JSON with comments: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`,
    };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, file, message: `${file} is not a JSON object` };
  return { ok: true, file, value: value as Record<string, unknown>, text };
}

/** The config's new text: only hookwise's entry of `plugin` written, every comment and other entry kept. */
export function renderKiloConfig(settings: Record<string, unknown>, before: string | undefined): string {
  if (before === undefined) return `${JSON.stringify(settings, null, 2)}\n`;
  const list = settings['plugin'] as unknown[];
  const previous = parse(before, [], { allowTrailingComma: true })?.plugin as unknown;
  const index = list.findIndex(isHookwiseEntry);
  // The whole list when there was none; else the one entry, added at the end or corrected in place.
  const [where, value, insert] = Array.isArray(previous)
    ? [['plugin', index], list[index], index >= previous.length]
    : [['plugin'], list, false];
  const formattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };
  const text = applyEdits(before, modify(before, where, value, { formattingOptions, isArrayInsertion: insert }));
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Problems of the plugin entry, for `hookwise doctor --host kilo`; empty when it loads. */
export function checkKiloPlugin(projectDir: string): { ok: string[]; problems: string[] } {
  const read = readKiloConfig(projectDir);
  if (!read.ok) return { ok: [], problems: [read.message] };
  const label = path.relative(projectDir, read.file);
  if (read.text === undefined)
    return { ok: [], problems: [`no Kilo config (kilo.jsonc) in ${projectDir}; run \`hookwise init --host kilo\``] };
  return checkSettingsEntry({
    read,
    label,
    packageName: KILO_PACKAGE,
    host: 'kilo',
    key: 'plugin',
    isEntry: isHookwiseEntry,
    folderOf: (spec) => {
      if (spec.startsWith('file:')) return new URL(spec).pathname;
      if (spec.startsWith('.') || spec.startsWith('/')) return path.resolve(path.dirname(read.file), spec);
      return {
        problem: `${label} names "${spec}": Kilo installs a bare name from the npm registry, not from node_modules; run \`hookwise init --host kilo\``,
      };
    },
    check: (manifest, folder, spec) => {
      const exports = manifest['exports'] as Record<string, unknown> | undefined;
      const server = exports?.['./server'] as { default?: unknown } | undefined;
      const entry = typeof server?.default === 'string' ? server.default : manifest['main'];
      if (typeof entry !== 'string' || !existsSync(path.join(folder, entry)))
        return { problem: `${folder} has no built entry (package.json "main"); reinstall ${KILO_PACKAGE}` };
      return { ok: `${label} loads ${KILO_PACKAGE} from ${spec}` };
    },
  });
}
