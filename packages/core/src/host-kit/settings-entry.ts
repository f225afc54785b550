// What `hookwise init` and `doctor` of a host that loads hookwise from a list in a settings file
// (OpenCode's `"plugin"`, pi's `"extensions"`) share: adding or correcting the entry, planning
// the file init writes, and checking that the entry loads an installed package.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { installedPackageFolder, relativeEntry, type JsonObjectRead } from './settings-file.js';

/** An entry of the list: a spec, or a spec with options (OpenCode's `[spec, options]`). */
export type SettingsEntry = string | [string, Record<string, unknown>];

/** The spec of an entry, with or without options. */
export const entrySpec = (entry: SettingsEntry): string => (Array.isArray(entry) ? entry[0] : entry);

/** The entries of `settings[key]` that `isEntry` recognises as the adapter's. */
export function settingsEntries(settings: Record<string, unknown>, key: string, isEntry: (entry: unknown) => boolean): SettingsEntry[] {
  return (Array.isArray(settings[key]) ? (settings[key] as unknown[]) : []).filter(isEntry) as SettingsEntry[];
}

/**
 * The settings with the adapter's entry in the `key` list: added when missing, its spec
 * corrected when it points elsewhere (options kept), every other entry and key untouched.
 * `changed` is false when the entry is already right, so running init again writes nothing.
 */
export function mergeSettingsEntry(
  settings: Record<string, unknown>,
  key: string,
  isEntry: (entry: unknown) => boolean,
  spec: string,
): { settings: Record<string, unknown>; changed: boolean } {
  const current = Array.isArray(settings[key]) ? (settings[key] as unknown[]) : [];
  const index = current.findIndex(isEntry);
  if (index === -1) return { settings: { ...settings, [key]: [...current, spec] }, changed: true };
  const entry = current[index] as SettingsEntry;
  if (entrySpec(entry) === spec) return { settings, changed: false };
  const next = current.slice();
  next[index] = Array.isArray(entry) ? [spec, entry[1]] : spec;
  return { settings: { ...settings, [key]: next }, changed: true };
}

export interface SettingsEntryPlan {
  /** The host as the summary names it (`OpenCode`, `pi`). */
  hostName: string;
  packageName: string;
  projectDir: string;
  /** The settings file as read (absent: init writes it). */
  read: (projectDir: string) => JsonObjectRead;
  key: string;
  isEntry: (entry: unknown) => boolean;
  /** What a new settings file starts with (default empty). */
  newFile?: Record<string, unknown>;
  /** A path as init prints it. */
  relative: (file: string) => string;
  /** The file's new text (default: the settings as JSON); a host whose file has comments keeps them here. */
  render?: (settings: Record<string, unknown>, before: string | undefined) => string;
}

/** A file init writes (the CLI's `PlannedFile`). */
export interface PlannedSettingsFile {
  file: string;
  before: string | undefined;
  after: string;
  summary: string;
  backup: boolean;
}

/**
 * `hookwise init` for such a host: the settings file with an entry that loads the installed
 * package by its path relative to the file, or why not. No file when it is already right.
 */
export function planSettingsEntry(plan: SettingsEntryPlan): { ok: true; files: PlannedSettingsFile[] } | { ok: false; message: string } {
  const folder = installedPackageFolder(plan.projectDir, plan.packageName);
  if (!folder)
    return {
      ok: false,
      message: `${plan.packageName} is not installed in ${plan.projectDir}; run \`npm install -D ${plan.packageName}\` first`,
    };
  const read = plan.read(plan.projectDir);
  if (!read.ok) return { ok: false, message: read.message };
  const spec = relativeEntry(read.file, folder);
  const merged = mergeSettingsEntry(read.text === undefined ? (plan.newFile ?? read.value) : read.value, plan.key, plan.isEntry, spec);
  if (!merged.changed) return { ok: true, files: [] };
  const file = {
    file: read.file,
    before: read.text,
    after: plan.render ? plan.render(merged.settings, read.text) : `${JSON.stringify(merged.settings, null, 2)}\n`,
    summary: `${read.text === undefined ? 'write' : 'update'} ${plan.relative(read.file)}: ${plan.hostName} loads hookwise from ${spec}`,
    backup: read.text !== undefined,
  };
  return { ok: true, files: [file] };
}

export interface SettingsEntryCheck {
  /** The settings file read as JSON. */
  read: Extract<JsonObjectRead, { ok: true }>;
  /** The file as messages name it (`opencode.json`, `.pi/settings.json`). */
  label: string;
  packageName: string;
  /** The `--host` of the init command messages offer. */
  host: string;
  key: string;
  isEntry: (entry: unknown) => boolean;
  /** The folder an entry's spec loads, or a problem (a spec the host cannot load from a folder). */
  folderOf?: (spec: string) => string | { problem: string };
  /** What the host needs of the package's manifest: an ok line, or a problem. */
  check: (manifest: Record<string, unknown>, folder: string, spec: string) => { ok: string } | { problem: string };
}

/** `hookwise doctor` for such a host: whether the settings name the package once, and it loads. */
export function checkSettingsEntry(check: SettingsEntryCheck): { ok: string[]; problems: string[] } {
  const { label, packageName, read } = check;
  const ok: string[] = [];
  const problems: string[] = [];
  const entries = settingsEntries(read.value, check.key, check.isEntry);
  if (entries.length === 0) return { ok, problems: [`${label} does not load ${packageName}; run \`hookwise init --host ${check.host}\``] };
  if (entries.length > 1)
    problems.push(`${label} lists ${packageName} ${entries.length} times; each copy would run the plugins again — keep one`);
  const spec = entrySpec(entries[0]!);
  const folder = check.folderOf ? check.folderOf(spec) : path.resolve(path.dirname(read.file), spec);
  if (typeof folder !== 'string') return { ok, problems: [...problems, folder.problem] };
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    problems.push(
      `${label} loads ${spec}, but ${folder} has no package.json; install ${packageName} and run \`hookwise init --host ${check.host}\``,
    );
    return { ok, problems };
  }
  const checked = check.check(manifest, folder, spec);
  if ('ok' in checked) ok.push(checked.ok);
  else problems.push(checked.problem);
  return { ok, problems };
}
