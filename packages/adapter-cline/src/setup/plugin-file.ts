import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { installedPackageFolder } from '@hookwise/core/host';

/**
 * `hookwise init` and `hookwise doctor` for Cline (see ./index.ts): a plugin file in the
 * project's `.cline/plugins/` that imports the installed package by name. Cline 3.0.65 loads
 * every `.js` file there in its plugin sandbox but follows no symlink, and the sandbox's loader
 * hands a bare import's default export back wrapped once more: the file unwraps it.
 */

export const CLINE_PACKAGE = '@hookwise/adapter-cline';
export const PLUGIN_FILE = path.join('.cline', 'plugins', 'hookwise.js');

export const PLUGIN_SOURCE = [
  '// hookwise for Cline (written by `hookwise init --host cline`): runs the hookwise plugins of',
  "// this project's hookwise.config.* on every model request, tool call, run and compaction.",
  `import * as m from '${CLINE_PACKAGE}';`,
  'const p = m.default ?? m.plugin;',
  'export default p?.name ? p : (p?.default ?? p?.plugin);',
  '',
].join('\n');

const read = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/** The plugin file init writes, or why not; no file when it is already right. */
export function planPluginFile(projectDir: string, relative: (file: string) => string) {
  if (!installedPackageFolder(projectDir, CLINE_PACKAGE))
    return {
      ok: false as const,
      message: `${CLINE_PACKAGE} is not installed in ${projectDir}; run \`npm install -D ${CLINE_PACKAGE}\` first`,
    };
  const file = path.join(projectDir, PLUGIN_FILE);
  const before = read(file);
  if (before === PLUGIN_SOURCE) return { ok: true as const, files: [] };
  const summary = `${before === undefined ? 'write' : 'update'} ${relative(file)}: Cline loads hookwise from ${CLINE_PACKAGE}`;
  return { ok: true as const, files: [{ file, before, after: PLUGIN_SOURCE, summary, backup: before !== undefined }] };
}

/** The nearest folder from `dir` upwards that holds `.git`. */
function gitRoot(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (existsSync(path.join(current, '.git'))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/** What `hookwise doctor --host cline` says of the plugin file; `problems` empty when it loads. */
export function checkPluginFile(projectDir: string, env: NodeJS.ProcessEnv = process.env): { ok: string[]; problems: string[] } {
  const ok: string[] = [];
  const problems: string[] = [];
  const text = read(path.join(projectDir, PLUGIN_FILE));
  const folder = installedPackageFolder(projectDir, CLINE_PACKAGE);
  if (text === undefined) problems.push(`${PLUGIN_FILE} is missing: Cline does not load hookwise; run \`hookwise init --host cline\``);
  else if (!text.includes(`'${CLINE_PACKAGE}'`))
    problems.push(`${PLUGIN_FILE} does not import ${CLINE_PACKAGE}; run \`hookwise init --host cline\``);
  if (!folder) problems.push(`${CLINE_PACKAGE} is not installed in ${projectDir}; run \`npm install -D ${CLINE_PACKAGE}\``);
  else if (!existsSync(path.join(folder, 'dist', 'index.js'))) problems.push(`${folder} has no dist/index.js; reinstall ${CLINE_PACKAGE}`);
  const root = gitRoot(projectDir);
  if (root !== undefined && root !== path.resolve(projectDir))
    problems.push(
      `Cline takes ${root} (the git repository's root) as the workspace and looks for .cline/plugins there, not in ${projectDir}`,
    );
  if (problems.length === 0) ok.push(`${PLUGIN_FILE} loads ${CLINE_PACKAGE} from ${folder}`);
  // Advice, not problems: Cline's plugin sandbox runs on a Node of its choosing, with a 4 s import limit.
  ok.push(
    env['CLINE_JS_RUNTIME_PATH']
      ? `Cline's plugin sandbox runs ${env['CLINE_JS_RUNTIME_PATH']} (CLINE_JS_RUNTIME_PATH); Node 22 is recommended`
      : "Cline's plugin sandbox runs the `node` on PATH: Node 22 is recommended (set CLINE_JS_RUNTIME_PATH to choose one)",
  );
  ok.push(
    `Cline gives a plugin ${env['CLINE_PLUGIN_IMPORT_TIMEOUT_MS'] ?? '4000'} ms to load (CLINE_PLUGIN_IMPORT_TIMEOUT_MS) and skips it past that; raise it on a slow machine`,
  );
  return { ok, problems };
}
