import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkSettingsEntry, readJsonObject, settingsEntries, type JsonObjectRead } from '@hookwise/core/host';

/**
 * `hookwise init` and `hookwise doctor` for pi (see ./index.ts): the entry in the project's
 * `.pi/settings.json` `"extensions"` that loads the installed package. pi resolves a relative
 * path from the settings file that holds it and loads a package folder through its
 * `package.json` `"pi": { "extensions" }`; project settings load once the project is trusted.
 */

export const PI_PACKAGE = '@hookwise/adapter-pi';
export const SETTINGS_FILE = path.join('.pi', 'settings.json');

/** Whether an `extensions` entry is hookwise's (by path or by name). */
export function isHookwiseEntry(entry: unknown): boolean {
  return typeof entry === 'string' && /(^|[/:@])@?hookwise\/adapter-pi(\/|@|$)|(^|\/)adapter-pi\/?$/.test(entry);
}

/** The project's `.pi/settings.json` (absent is fine: init writes it). */
export const readPiSettings = (projectDir: string): JsonObjectRead => readJsonObject(path.join(projectDir, SETTINGS_FILE));

/** What `hookwise doctor --host pi` says of the extension entry; `problems` empty when it loads. */
export function checkPiExtension(projectDir: string): { ok: string[]; problems: string[] } {
  const read = readPiSettings(projectDir);
  if (!read.ok) return { ok: [], problems: [read.message] };
  if (
    settingsEntries(read.value, 'extensions', isHookwiseEntry).length === 0 &&
    settingsEntries(read.value, 'packages', isHookwiseEntry).length > 0
  )
    return { ok: [`${SETTINGS_FILE} loads ${PI_PACKAGE} as a package`], problems: [] };
  return checkSettingsEntry({
    read,
    label: SETTINGS_FILE,
    packageName: PI_PACKAGE,
    host: 'pi',
    key: 'extensions',
    isEntry: isHookwiseEntry,
    check: (manifest, folder, spec) => {
      const declared = (manifest['pi'] as { extensions?: unknown } | undefined)?.extensions;
      const extensions = Array.isArray(declared) ? declared.filter((entry): entry is string => typeof entry === 'string') : [];
      const missing = extensions.filter((entry) => !existsSync(path.join(folder, entry)));
      if (extensions.length === 0 || missing.length > 0)
        return {
          problem: `${folder} has no built extension (${missing.join(', ') || 'package.json "pi.extensions" is empty'}); reinstall ${PI_PACKAGE}`,
        };
      return { ok: `${SETTINGS_FILE} loads ${PI_PACKAGE} from ${spec} (pi reads project settings once you trust the project)` };
    },
  });
}
