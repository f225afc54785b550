import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { HostSetup, PlannedFile } from './host-setup.js';
import {
  engineForPlugins,
  findProjectConfig,
  installedPlugins,
  loadProjectEngine,
  pointsInUse,
  resolvePluginNames,
  shortPluginName,
} from './project.js';

export interface InitOptions {
  projectDir: string;
  /** The host adapter's setup. */
  setup: HostSetup;
  /** The values of the host's init options. */
  hostOptions: Readonly<Record<string, unknown>>;
  /** Installed plugin packages, by package name or short name (`x` for `x`, `hook-x`, `@scope/x`, `@scope/hook-x`); undefined: ask, or every installed plugin when nobody can answer. */
  plugins?: string[] | undefined;
  dryRun: boolean;
  home?: string | undefined;
  /** Asks which plugins to use; absent when stdin is not a terminal. */
  ask?: ((question: string) => Promise<string>) | undefined;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * `hookwise init`: writes `hookwise.config.json` when the project has no config, the host's own
 * files (planned by its adapter), and ignores `.hookwise/` in git. Running it again changes
 * nothing. Returns the exit code.
 */
export async function init(options: InitOptions): Promise<number> {
  const { projectDir, setup, stdout, stderr } = options;
  const planned: PlannedFile[] = [];
  const relative = (file: string) => (file.startsWith(projectDir + path.sep) ? path.relative(projectDir, file) : file);

  // 1. The config.
  const existingConfig = findProjectConfig(projectDir);
  let packages: string[] | undefined;
  if (existingConfig) {
    if (options.plugins) {
      const added = addPlugins(existingConfig, options, relative);
      if (!added.ok) {
        stderr(`hookwise init: ${added.message} (nothing was changed)`);
        return 1;
      }
      if (added.file) planned.push(added.file);
    }
  } else {
    const chosen = await choosePlugins(options);
    if (!chosen.ok) {
      stderr(`hookwise init: ${chosen.message} (nothing was changed)`);
      return 1;
    }
    packages = chosen.packages;
    const file = path.join(projectDir, 'hookwise.config.json');
    const config = { plugins: Object.fromEntries(packages.map((name) => [name, {}])) };
    planned.push({
      file,
      before: undefined,
      after: `${JSON.stringify(config, null, 2)}\n`,
      summary: `write ${relative(file)} (plugins: ${packages.join(', ') || 'none'})`,
    });
  }

  // 2. The host's files.
  const plan = await setup.init({
    projectDir,
    home: options.home,
    options: options.hostOptions,
    relative,
    stdout,
    stderr,
    pointsInUse: async () => {
      const engine = packages
        ? await engineForPlugins(projectDir, packages, setup.host)
        : (await loadProjectEngine(projectDir, { inMemory: true, host: setup.host })).engine;
      try {
        return pointsInUse(engine);
      } finally {
        await engine.dispose();
      }
    },
  });
  if (!plan.ok) {
    stderr(`hookwise init: ${plan.message} (nothing was changed)`);
    return 1;
  }
  planned.push(...plan.files);

  // 3. .gitignore.
  const gitignore = path.join(projectDir, '.gitignore');
  const ignoreText = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : undefined;
  const ignored = (ignoreText ?? '')
    .split(/\r?\n/)
    .some((line) => ['.hookwise', '.hookwise/', '/.hookwise', '/.hookwise/'].includes(line.trim()));
  if (!ignored) {
    const base = ignoreText === undefined || ignoreText === '' ? '' : ignoreText.endsWith('\n') ? ignoreText : `${ignoreText}\n`;
    planned.push({
      file: gitignore,
      before: ignoreText,
      after: `${base}# hookwise session state and logs\n.hookwise/\n`,
      summary: `add .hookwise/ to ${relative(gitignore)}`,
    });
  }

  if (options.dryRun) {
    if (planned.length === 0) stdout('hookwise init --dry-run: nothing to change\n');
    for (const item of planned)
      stdout(
        createTwoFilesPatch(
          relative(item.file),
          relative(item.file),
          item.before ?? '',
          item.after,
          item.before === undefined ? '(new file)' : 'current',
          'after hookwise init',
        ),
      );
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
  await plan.finish?.();
  return 0;
}

/**
 * `--plugins` on a project that has a config: the named plugins are added to a JSON config
 * (those already in it keep their options); a JS or TS config is code, so the user is told what to add.
 * Unknown names are an error, as for a new config.
 */
function addPlugins(
  configFile: string,
  options: InitOptions,
  relative: (file: string) => string,
): { ok: true; file?: PlannedFile } | { ok: false; message: string } {
  const chosen = resolvePluginNames(splitList(options.plugins!), installedPlugins(options.projectDir));
  if (!chosen.ok) return chosen;
  const before = readFileSync(configFile, 'utf8');
  let config: { plugins?: unknown } & Record<string, unknown>;
  try {
    config = configFile.endsWith('.json') ? (JSON.parse(before) as typeof config) : {};
  } catch (error) {
    return {
      ok: false,
      message: `${relative(configFile)} is not valid JSON (${(error as Error).message}); run \`hookwise doctor\` to see where`,
    };
  }
  const listed = Array.isArray(config.plugins)
    ? config.plugins.map((entry) => (Array.isArray(entry) ? entry[0] : entry))
    : Object.keys((config.plugins as Record<string, unknown> | undefined) ?? {});
  const missing = chosen.packages.filter((name) => !listed.includes(name));
  if (missing.length === 0) return { ok: true };
  // A config in code is the user's to edit: say what to add, and set up the rest.
  if (!configFile.endsWith('.json')) {
    options.stderr(
      `hookwise init: keeping ${relative(configFile)} (a config in code): add ${missing.join(', ')} to its plugins yourself if it lacks them`,
    );
    return { ok: true };
  }
  const plugins = Array.isArray(config.plugins)
    ? [...config.plugins, ...missing]
    : { ...((config.plugins as Record<string, unknown> | undefined) ?? {}), ...Object.fromEntries(missing.map((name) => [name, {}])) };
  return {
    ok: true,
    file: {
      file: configFile,
      before,
      after: `${JSON.stringify({ ...config, plugins }, null, 2)}\n`,
      summary: `add ${missing.join(', ')} to ${relative(configFile)}`,
    },
  };
}

const splitList = (entries: readonly string[]): string[] =>
  entries
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter(Boolean);

async function choosePlugins(options: InitOptions): Promise<{ ok: true; packages: string[] } | { ok: false; message: string }> {
  // Offered and matched: the plugins installed in the project, found by their package.json marker.
  const installed = installedPlugins(options.projectDir);
  if (options.plugins) return resolvePluginNames(splitList(options.plugins), installed);
  if (!options.ask) {
    options.stderr(
      `hookwise init: no --plugins given and no terminal to ask; using every installed plugin: ${installed.join(', ') || 'none'}\n`,
    );
    return { ok: true, packages: installed };
  }
  const chosen: string[] = [];
  for (const name of installed) {
    const answer = (await options.ask(`Use ${name} (${shortPluginName(name)})? [Y/n] `)).trim().toLowerCase();
    if (answer === '' || answer === 'y' || answer === 'yes') chosen.push(name);
  }
  return { ok: true, packages: chosen };
}
