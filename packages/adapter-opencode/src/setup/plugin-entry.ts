import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkSettingsEntry, planSettingsEntry, type JsonObjectRead, type PlannedSettingsFile } from '@hookwise/core/host';

/**
 * `hookwise init` and `doctor` of a host of this binding (OpenCode, Kilo): one entry in the
 * `plugin` list of the project's config. Both hosts install a bare package name from the npm
 * registry into their own cache, not from the project's node_modules (offline OpenCode gives up
 * after about 70 s), so the entry is the installed package folder as a path relative to the
 * config file; both load a folder through its package.json `main`.
 */
export interface PluginEntryHost {
  /** `--host`: `opencode`, `kilo`. */
  host: string;
  /** The host as messages name it. */
  hostName: string;
  packageName: string;
  /** The project's config file as read (absent: init writes it). */
  read: (projectDir: string) => JsonObjectRead;
  /** What a new config file starts with. */
  newFile: Record<string, unknown>;
  /** The config's new text when it has comments to keep (default: JSON). */
  render?: (settings: Record<string, unknown>, before: string | undefined) => string;
}

/** Whether an entry of `plugin` is `packageName`'s (by path or by name, with or without options). */
export function pluginEntryMatcher(packageName: string): (entry: unknown) => boolean {
  const [scope, name] = packageName.split('/') as [string, string];
  const pattern = new RegExp(`(^|[/@])${scope}/${name}(/|@|$)|(^|/)${name}/?$`);
  return (entry) => {
    const spec = Array.isArray(entry) ? entry[0] : entry;
    return typeof spec === 'string' && pattern.test(spec);
  };
}

/** Problems of the plugin entry, for `hookwise doctor`; empty when it loads. */
export function checkPluginEntry(host: PluginEntryHost, projectDir: string): { ok: string[]; problems: string[] } {
  const read = host.read(projectDir);
  if (!read.ok) return { ok: [], problems: [read.message] };
  const label = path.relative(projectDir, read.file);
  if (read.text === undefined) return { ok: [], problems: [`no ${label} in ${projectDir}; run \`hookwise init --host ${host.host}\``] };
  return checkSettingsEntry({
    read,
    label,
    packageName: host.packageName,
    host: host.host,
    key: 'plugin',
    isEntry: pluginEntryMatcher(host.packageName),
    folderOf: (spec) => {
      if (spec.startsWith('file:')) return new URL(spec).pathname;
      if (spec.startsWith('.') || spec.startsWith('/')) return path.resolve(path.dirname(read.file), spec);
      return {
        problem: `${label} names "${spec}": ${host.hostName} looks a bare name up in the npm registry, not in node_modules; run \`hookwise init --host ${host.host}\` to use the installed folder`,
      };
    },
    check: (manifest, folder, spec) => {
      const main = manifest['main'];
      return typeof main !== 'string' || !main || !existsSync(path.join(folder, main))
        ? { problem: `${folder} has no built entry (package.json "main"); reinstall ${host.packageName}` }
        : { ok: `${label} loads ${host.packageName} from ${spec}` };
    },
  });
}

/** The host setup @hookwise/cli loads (its `HostSetup`): init adds or corrects the entry, doctor checks it. */
export function pluginEntrySetup(host: PluginEntryHost, describe: string) {
  return {
    host: host.host,
    describe,
    async init(context: {
      projectDir: string;
      relative: (file: string) => string;
    }): Promise<{ ok: true; files: PlannedSettingsFile[] } | { ok: false; message: string }> {
      return planSettingsEntry({
        hostName: host.hostName,
        packageName: host.packageName,
        projectDir: context.projectDir,
        read: host.read,
        key: 'plugin',
        isEntry: pluginEntryMatcher(host.packageName),
        newFile: host.newFile,
        relative: context.relative,
        ...(host.render ? { render: host.render } : {}),
      });
    },
    async doctor(context: { projectDir: string; ok: (line: string) => void; problem: (line: string) => void }): Promise<void> {
      const checked = checkPluginEntry(host, context.projectDir);
      for (const line of checked.ok) context.ok(line);
      for (const line of checked.problems) context.problem(line);
    },
  };
}
