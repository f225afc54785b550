import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HostSetup } from '@hookwise/cli';
import { checkSettingsEntry, planSettingsEntry, readJsonObject, settingsEntries } from '@hookwise/core/host';

// `hookwise init` and `doctor` for pi (package.json's `"hookwise"` field points the CLI here): the
// entry in the project's `.pi/settings.json` `"extensions"` that loads the installed package. pi
// resolves a relative path from that file and loads a package folder through its package.json
// `"pi": { "extensions" }`; project settings load once the project is trusted. Nothing to build.
const PI_PACKAGE = '@hookwise/adapter-pi';
const SETTINGS_FILE = path.join('.pi', 'settings.json');
const readPiSettings = (projectDir: string) => readJsonObject(path.join(projectDir, SETTINGS_FILE));
/** Whether an `extensions` entry is hookwise's (by path or by name). */
const isHookwiseEntry = (entry: unknown): boolean =>
  typeof entry === 'string' && /(^|[/:@])@?hookwise\/adapter-pi(\/|@|$)|(^|\/)adapter-pi\/?$/.test(entry);

const setup: HostSetup = {
  host: 'pi',
  describe: 'pi: the installed @hookwise/adapter-pi as an extension in .pi/settings.json',
  async init({ projectDir, relative }) {
    return planSettingsEntry({
      hostName: 'pi',
      packageName: PI_PACKAGE,
      projectDir,
      read: readPiSettings,
      key: 'extensions',
      isEntry: isHookwiseEntry,
      relative,
    });
  },
  async doctor({ projectDir, ok, problem }) {
    const read = readPiSettings(projectDir);
    if (!read.ok) return problem(read.message);
    const entries = (key: string) => settingsEntries(read.value, key, isHookwiseEntry).length;
    if (entries('extensions') === 0 && entries('packages') > 0) return ok(`${SETTINGS_FILE} loads ${PI_PACKAGE} as a package`);
    const checked = checkSettingsEntry({
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
    for (const line of checked.ok) ok(line);
    for (const line of checked.problems) problem(line);
  },
};

export default setup;
