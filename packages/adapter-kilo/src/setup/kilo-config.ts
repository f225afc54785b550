import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pluginEntryMatcher, type PluginEntryHost } from '@hookwise/adapter-opencode/plugin-entry';
import type { JsonObjectRead } from '@hookwise/core/host';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/**
 * `hookwise init` and `doctor` for Kilo (see ./index.ts): OpenCode's plugin entry (Kilo loads
 * plugins as OpenCode does), in Kilo's config, which is JSON with comments: init keeps them.
 */
export const KILO_PACKAGE = '@hookwise/adapter-kilo';
/** The project config files Kilo reads, in the order init picks an existing one. */
const CONFIG_FILES = ['kilo.jsonc', 'kilo.json', '.kilo/kilo.jsonc', '.kilo/kilo.json'];

export const isHookwiseEntry = pluginEntryMatcher(KILO_PACKAGE);

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

export const KILO_HOST: PluginEntryHost = {
  host: 'kilo',
  hostName: 'Kilo',
  packageName: KILO_PACKAGE,
  read: readKiloConfig,
  newFile: { $schema: 'https://app.kilo.ai/config.json' },
  render: renderKiloConfig,
};
