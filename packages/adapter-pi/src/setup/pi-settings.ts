import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { installedPackageFolder, readJsonObject, relativeEntry, type JsonObjectRead } from '@hookwise/core/host';

/**
 * `hookwise init` and `hookwise doctor` for pi (see ./index.ts): the entry in the project's
 * `.pi/settings.json` `"extensions"` that loads the installed package. pi resolves a relative
 * path from the settings file that holds it and loads a package folder through its
 * `package.json` `"pi": { "extensions" }`; project settings load once the project is trusted.
 */
export const PI_PACKAGE = '@hookwise/adapter-pi';
export const SETTINGS_FILE = path.join('.pi', 'settings.json');

/** The folder of the installed `@hookwise/adapter-pi` as the project resolves it (links kept). */
export const installedPiExtension = (projectDir: string): string | undefined => installedPackageFolder(projectDir, PI_PACKAGE);

/** The entry pi loads: `../node_modules/@hookwise/adapter-pi`, relative to `.pi/settings.json`. */
export const extensionSpec = relativeEntry;

/** Whether an `extensions` entry is hookwise's (by path or by name). */
export function isHookwiseEntry(entry: unknown): boolean {
  return typeof entry === 'string' && /(^|[/:@])@?hookwise\/adapter-pi(\/|@|$)|(^|\/)adapter-pi\/?$/.test(entry);
}

export type PiSettingsRead = JsonObjectRead;

/** The project's `.pi/settings.json` (absent is fine: init writes it). */
export const readPiSettings = (projectDir: string): PiSettingsRead => readJsonObject(path.join(projectDir, SETTINGS_FILE));

/**
 * The settings with hookwise's extension entry: added when missing, corrected when it points
 * elsewhere, every other entry and key untouched. `changed` is false when the entry is already
 * right, so running init again writes nothing.
 */
export function mergePiExtension(settings: Record<string, unknown>, spec: string): { settings: Record<string, unknown>; changed: boolean } {
  const current = Array.isArray(settings['extensions']) ? (settings['extensions'] as unknown[]) : [];
  const index = current.findIndex(isHookwiseEntry);
  if (index === -1) return { settings: { ...settings, extensions: [...current, spec] }, changed: true };
  if (current[index] === spec) return { settings, changed: false };
  const extensions = current.slice();
  extensions[index] = spec;
  return { settings: { ...settings, extensions }, changed: true };
}

/** What `hookwise doctor --host pi` says of the extension entry; `problems` empty when it loads. */
export function checkPiExtension(projectDir: string): { ok: string[]; problems: string[] } {
  const ok: string[] = [];
  const problems: string[] = [];
  const read = readPiSettings(projectDir);
  if (!read.ok) return { ok, problems: [read.message] };
  const entries = (Array.isArray(read.value['extensions']) ? (read.value['extensions'] as unknown[]) : []).filter(
    isHookwiseEntry,
  ) as string[];
  const packages = (Array.isArray(read.value['packages']) ? (read.value['packages'] as unknown[]) : []).filter(isHookwiseEntry);
  if (entries.length === 0 && packages.length > 0) {
    ok.push(`${SETTINGS_FILE} loads ${PI_PACKAGE} as a package`);
    return { ok, problems };
  }
  if (entries.length === 0) return { ok, problems: [`${SETTINGS_FILE} does not load ${PI_PACKAGE}; run \`hookwise init --host pi\``] };
  if (entries.length > 1)
    problems.push(`${SETTINGS_FILE} lists ${PI_PACKAGE} ${entries.length} times; each copy would run the plugins again — keep one`);
  const spec = entries[0]!;
  const folder = path.resolve(path.dirname(read.file), spec);
  let manifest: { pi?: { extensions?: unknown } } | undefined;
  try {
    manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { pi?: { extensions?: unknown } };
  } catch {
    problems.push(
      `${SETTINGS_FILE} loads ${spec}, but ${folder} has no package.json; install ${PI_PACKAGE} and run \`hookwise init --host pi\``,
    );
    return { ok, problems };
  }
  const extensions = Array.isArray(manifest.pi?.extensions)
    ? (manifest.pi.extensions as unknown[]).filter((entry): entry is string => typeof entry === 'string')
    : [];
  const missing = extensions.filter((entry) => !existsSync(path.join(folder, entry)));
  if (extensions.length === 0 || missing.length > 0)
    problems.push(
      `${folder} has no built extension (${missing.join(', ') || 'package.json "pi.extensions" is empty'}); reinstall ${PI_PACKAGE}`,
    );
  else ok.push(`${SETTINGS_FILE} loads ${PI_PACKAGE} from ${spec} (pi reads project settings once you trust the project)`);
  return { ok, problems };
}
