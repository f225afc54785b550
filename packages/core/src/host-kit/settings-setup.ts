// `hookwise init` and `doctor` whole, for a host that loads hookwise from an entry of a list in
// its settings file and a package folder through its package.json `main`: the CLI's `HostSetup`
// made from how the host reads the file and what it makes of an entry that is not a path.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeRegExp } from '../slash-command.js';
import { checkSettingsEntry, planSettingsEntry, type SettingsEntryPlan } from './settings-entry.js';

export interface SettingsEntrySetup extends Omit<SettingsEntryPlan, 'projectDir' | 'relative' | 'isEntry'> {
  /** The name `--host` takes. */
  host: string;
  /** One line: what init sets up. */
  describe: string;
  /** Why an entry that is a bare package name does not load (a host that looks it up elsewhere); default: a path from the file. */
  bareName?: string;
}

/**
 * Whether a list entry is `packageName`'s: its installed folder by any path, a `file:` URL, or
 * the name with or without a version, alone or with options (`[spec, options]`).
 */
export function packageEntryMatcher(packageName: string): (entry: unknown) => boolean {
  const name = escapeRegExp(packageName);
  const pattern = new RegExp(`(^|[/@])${name}(/|@|$)|(^|/)${name.split('/').at(-1)}/?$`);
  return (entry) => {
    const spec = Array.isArray(entry) ? entry[0] : entry;
    return typeof spec === 'string' && pattern.test(spec);
  };
}

/** `hookwise doctor`'s lines: the file names the package once, by a folder with a built `main`. */
export function checkSettingsFile(setup: SettingsEntrySetup, projectDir: string): { ok: string[]; problems: string[] } {
  const read = setup.read(projectDir);
  if (!read.ok) return { ok: [], problems: [read.message] };
  const label = path.relative(projectDir, read.file);
  const init = `\`hookwise init --host ${setup.host}\``;
  if (read.text === undefined) return { ok: [], problems: [`no ${label} in ${projectDir}; run ${init}`] };
  return checkSettingsEntry({
    ...setup,
    read,
    label,
    isEntry: packageEntryMatcher(setup.packageName),
    folderOf: (spec) => {
      if (spec.startsWith('file:')) return fileURLToPath(spec);
      if (setup.bareName && !spec.startsWith('.') && !path.isAbsolute(spec))
        return { problem: `${label} names "${spec}": ${setup.bareName}; run ${init} to use the installed folder` };
      return path.resolve(path.dirname(read.file), spec);
    },
    check: (manifest, folder, spec) => {
      const main = manifest['main'];
      return typeof main === 'string' && main !== '' && existsSync(path.join(folder, main))
        ? { ok: `${label} loads ${setup.packageName} from ${spec}` }
        : { problem: `${folder} has no built entry (package.json "main"); reinstall ${setup.packageName}` };
    },
  });
}

/** The host setup @hookwise/cli loads (its `HostSetup`): init adds or corrects the entry, doctor checks it. */
export function settingsEntrySetup(setup: SettingsEntrySetup) {
  return {
    host: setup.host,
    describe: setup.describe,
    init: async (context: { projectDir: string; relative: (file: string) => string }) =>
      planSettingsEntry({
        ...setup,
        projectDir: context.projectDir,
        relative: context.relative,
        isEntry: packageEntryMatcher(setup.packageName),
      }),
    doctor: async (context: { projectDir: string; ok: (line: string) => void; problem: (line: string) => void }) => {
      const checked = checkSettingsFile(setup, context.projectDir);
      for (const line of checked.ok) context.ok(line);
      for (const line of checked.problems) context.problem(line);
    },
  };
}
