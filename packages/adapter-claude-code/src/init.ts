import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { buildRunBundle, isManifestFresh, readManifest } from './bundle.js';
import { EVENT_POINTS, type MappedEvent } from './events.js';
import { engineForPlugins, installedPlugins, loadProjectEngine, pointsInUse, readSettings, resolvePluginNames, shortPluginName } from './project.js';
import { installedOpenCodePlugin, mergeOpenCodePlugin, OPENCODE_PACKAGE, pluginSpec, readOpenCodeConfig } from './opencode-setup.js';
import { findProjectConfig } from './run.js';
import { eventsForPoints, mergeHookwiseHooks, settingsFileOf, type SettingsScope } from './settings.js';

export interface InitOptions {
  projectDir: string;
  /** Installed plugin packages, by package name or short name (`x` for `x`, `hook-x`, `@scope/x`, `@scope/hook-x`); undefined: ask, or every installed plugin when nobody can answer. */
  plugins?: string[] | undefined;
  scope: SettingsScope;
  dryRun: boolean;
  /** Which agent loads hookwise: Claude Code (settings hooks, default) or OpenCode (a plugin in opencode.json). */
  host?: 'claude-code' | 'opencode' | undefined;
  /** The command prefix settings call, e.g. `npx hookwise`; default: `node <path of this bin>`. */
  command?: string | undefined;
  /** Absolute path of `bin/hookwise.cjs`. */
  binPath: string;
  /** The runtime file the run bundle includes (`dist/runtime.js`). */
  runtime: string;
  home?: string | undefined;
  /** Asks which plugins to use; absent when stdin is not a terminal. */
  ask?: ((question: string) => Promise<string>) | undefined;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface PlannedFile {
  file: string;
  before: string | undefined;
  after: string;
  summary: string;
  backup?: boolean;
}

/**
 * `hookwise init`: writes `hookwise.config.json` when the project has no config, merges one
 * `hookwise run <Event>` hook per needed event into the settings file of the scope (keeping a
 * backup and every other hook), and ignores `.hookwise/` in git. Running it again changes
 * nothing. Returns the exit code.
 */
export async function init(options: InitOptions): Promise<number> {
  const { projectDir, stdout, stderr } = options;
  const planned: PlannedFile[] = [];
  const relative = (file: string) => (file.startsWith(projectDir + path.sep) ? path.relative(projectDir, file) : file);

  // 1. The config.
  const existingConfig = findProjectConfig(projectDir);
  let packages: string[] | undefined;
  if (existingConfig) {
    if (options.plugins) stderr(`hookwise init: keeping ${relative(existingConfig)}; --plugins only applies to a new config`);
  } else {
    const chosen = await choosePlugins(options);
    if (!chosen.ok) {
      stderr(`hookwise init: ${chosen.message} (nothing was changed)`);
      return 1;
    }
    packages = chosen.packages;
    const file = path.join(projectDir, 'hookwise.config.json');
    const config = { plugins: Object.fromEntries(packages.map((name) => [name, {}])) };
    planned.push({ file, before: undefined, after: `${JSON.stringify(config, null, 2)}\n`, summary: `write ${relative(file)} (plugins: ${packages.join(', ') || 'none'})` });
  }

  if (options.host === 'opencode') {
    // 2–3. OpenCode: one plugin entry in opencode.json, the installed package by its path.
    const folder = installedOpenCodePlugin(projectDir);
    if (!folder) {
      stderr(`hookwise init: ${OPENCODE_PACKAGE} is not installed in ${projectDir}; run \`npm install -D ${OPENCODE_PACKAGE}\` first (nothing was changed)`);
      return 1;
    }
    const read = readOpenCodeConfig(projectDir);
    if (!read.ok) {
      stderr(`hookwise init: ${read.message} (nothing was changed)`);
      return 1;
    }
    const spec = pluginSpec(read.file, folder);
    const base = read.text === undefined ? { $schema: 'https://opencode.ai/config.json' } : read.value;
    const merged = mergeOpenCodePlugin(base, spec);
    if (merged.changed) {
      planned.push({ file: read.file, before: read.text, after: `${JSON.stringify(merged.config, null, 2)}\n`, summary: `${read.text === undefined ? 'write' : 'update'} ${relative(read.file)}: OpenCode loads hookwise from ${spec}`, backup: read.text !== undefined });
    }
  } else {
    // 2. The events the plugins need.
    let events: MappedEvent[];
    try {
      const engine = packages ? await engineForPlugins(projectDir, packages) : (await loadProjectEngine(projectDir, { inMemory: true })).engine;
      events = eventsForPoints(pointsInUse(engine).keys());
      await engine.dispose();
    } catch (error) {
      events = Object.keys(EVENT_POINTS) as MappedEvent[];
      stderr(`hookwise init: could not load the plugins (${firstLine(error)}); registering every event hookwise handles. Install the plugins, then run \`hookwise init\` again or \`hookwise doctor\`.`);
    }

    // 3. The settings.
    const settingsFile = settingsFileOf(options.scope, projectDir, options.home);
    const settings = readSettings(settingsFile);
    if (!settings.ok) {
      stderr(`hookwise init: ${settings.message}; fix or remove it, then run init again (nothing was changed)`);
      return 1;
    }
    const prefix = options.command ?? defaultCommandPrefix(projectDir, options.binPath, options.scope);
    const merged = mergeHookwiseHooks(settings.value, events, (event) => `${prefix} run ${event}`);
    if (merged.changed) {
      const before = existsSync(settingsFile) ? readFileSync(settingsFile, 'utf8') : undefined;
      planned.push({ file: settingsFile, before, after: `${JSON.stringify(merged.settings, null, 2)}\n`, summary: `${before === undefined ? 'write' : 'update'} ${relative(settingsFile)}: hookwise runs on ${events.join(', ')}`, backup: before !== undefined });
    }
  }

  // 4. .gitignore.
  const gitignore = path.join(projectDir, '.gitignore');
  const ignoreText = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : undefined;
  const ignored = (ignoreText ?? '').split(/\r?\n/).some((line) => ['.hookwise', '.hookwise/', '/.hookwise', '/.hookwise/'].includes(line.trim()));
  if (!ignored) {
    const base = ignoreText === undefined || ignoreText === '' ? '' : ignoreText.endsWith('\n') ? ignoreText : `${ignoreText}\n`;
    planned.push({ file: gitignore, before: ignoreText, after: `${base}# hookwise session state and logs\n.hookwise/\n`, summary: `add .hookwise/ to ${relative(gitignore)}` });
  }

  if (options.dryRun) {
    if (planned.length === 0) stdout('hookwise init --dry-run: nothing to change\n');
    for (const item of planned) stdout(createTwoFilesPatch(relative(item.file), relative(item.file), item.before ?? '', item.after, item.before === undefined ? '(new file)' : 'current', 'after hookwise init'));
    return 0;
  }

  for (const item of planned) {
    mkdirSync(path.dirname(item.file), { recursive: true });
    if (item.backup) copyFileSync(item.file, `${item.file}.hookwise.bak`);
    const temporary = `${item.file}.${process.pid}.tmp`;
    writeFileSync(temporary, item.after);
    renameSync(temporary, item.file);
    stdout(`✓ ${item.summary}${item.backup ? ` (backup: ${relative(item.file)}.hookwise.bak)` : ''}\n`);
  }
  if (planned.length === 0) stdout('✓ already set up: nothing changed\n');

  if (options.host === 'opencode') {
    stdout('Run `hookwise doctor --host opencode` to check the setup.\n');
    return 0;
  }

  // 5. Build the run bundle now, so the first hook call does not pay for it.
  const configFile = findProjectConfig(projectDir);
  const manifest = readManifest(projectDir);
  if (configFile && !(manifest?.bundle && isManifestFresh(manifest, { configFile, runtime: options.runtime }))) {
    const built = await buildRunBundle({ projectDir, configFile, runtime: options.runtime });
    if (!built.ok) stderr(`hookwise init: hook calls will use the slower unbundled path: ${built.reason}\n`);
  }
  stdout('Run `hookwise doctor` to check the setup.\n');
  return 0;
}

async function choosePlugins(options: InitOptions): Promise<{ ok: true; packages: string[] } | { ok: false; message: string }> {
  // Offered and matched: the plugins installed in the project, found by their package.json marker.
  const installed = installedPlugins(options.projectDir);
  if (options.plugins) return resolvePluginNames(options.plugins.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter(Boolean), installed);
  if (!options.ask) {
    options.stderr(`hookwise init: no --plugins given and no terminal to ask; using every installed plugin: ${installed.join(', ') || 'none'}\n`);
    return { ok: true, packages: installed };
  }
  const chosen: string[] = [];
  for (const name of installed) {
    const answer = (await options.ask(`Use ${name} (${shortPluginName(name)})? [Y/n] `)).trim().toLowerCase();
    if (answer === '' || answer === 'y' || answer === 'yes') chosen.push(name);
  }
  return { ok: true, packages: chosen };
}

/**
 * The command settings run: this package's bin inside the project when it is installed there
 * (so the settings file can be committed and works on every checkout), else this bin by its
 * absolute path. `node` is named directly: a package-manager shim (npx) costs 100+ ms per call.
 */
export function defaultCommandPrefix(projectDir: string, binPath: string, scope: SettingsScope): string {
  const local = path.join(projectDir, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
  if (scope !== 'user' && existsSync(local)) return 'node "$CLAUDE_PROJECT_DIR/node_modules/@hookwise/adapter-claude-code/bin/hookwise.cjs"';
  return `node ${JSON.stringify(binPath)}`;
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? '';
}
