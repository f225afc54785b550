import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gitRoot, installedPackageFolder } from '@hookwise/core/host';

// `hookwise init` and `doctor` for Cline: a plugin file in `.cline/plugins/` that imports the
// installed package by name. Cline 3.0.65 follows no symlink there, and its sandbox's loader hands
// a bare import's default export back wrapped once more: the file unwraps it.

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
const notInstalled = (projectDir: string) => `${CLINE_PACKAGE} is not installed in ${projectDir}; run \`npm install -D ${CLINE_PACKAGE}\``;

/** The plugin file init writes, or why not; no file when it is already right. */
export function planPluginFile(projectDir: string, relative: (file: string) => string) {
  if (!installedPackageFolder(projectDir, CLINE_PACKAGE)) return { ok: false as const, message: `${notInstalled(projectDir)} first` };
  const file = path.join(projectDir, PLUGIN_FILE);
  const before = read(file);
  if (before === PLUGIN_SOURCE) return { ok: true as const, files: [] };
  const summary = `${before === undefined ? 'write' : 'update'} ${relative(file)}: Cline loads hookwise from ${CLINE_PACKAGE}`;
  return { ok: true as const, files: [{ file, before, after: PLUGIN_SOURCE, summary, backup: before !== undefined }] };
}

/** What `hookwise doctor --host cline` says of the plugin file; `problems` empty when it loads. */
export function checkPluginFile(projectDir: string, env: NodeJS.ProcessEnv = process.env): { ok: string[]; problems: string[] } {
  const problems: string[] = [];
  const text = read(path.join(projectDir, PLUGIN_FILE));
  const folder = installedPackageFolder(projectDir, CLINE_PACKAGE);
  const init = '; run `hookwise init --host cline`';
  if (text === undefined) problems.push(`${PLUGIN_FILE} is missing: Cline does not load hookwise${init}`);
  else if (!text.includes(`'${CLINE_PACKAGE}'`)) problems.push(`${PLUGIN_FILE} does not import ${CLINE_PACKAGE}${init}`);
  if (!folder) problems.push(notInstalled(projectDir));
  else if (!existsSync(path.join(folder, 'dist', 'index.js'))) problems.push(`${folder} has no dist/index.js; reinstall ${CLINE_PACKAGE}`);
  const root = gitRoot(projectDir);
  if (root !== undefined && root !== path.resolve(projectDir))
    problems.push(
      `Cline takes ${root} (the git repository's root) as the workspace and looks for .cline/plugins there, not in ${projectDir}`,
    );
  // Advice, not problems: Cline's plugin sandbox runs on a Node of its choosing, with a 4 s import limit.
  const runtime = env['CLINE_JS_RUNTIME_PATH'];
  const ok = [
    ...(problems.length === 0 ? [`${PLUGIN_FILE} loads ${CLINE_PACKAGE} from ${folder}`] : []),
    runtime
      ? `Cline's plugin sandbox runs ${runtime} (CLINE_JS_RUNTIME_PATH); Node 22 is recommended`
      : "Cline's plugin sandbox runs the `node` on PATH: Node 22 is recommended (set CLINE_JS_RUNTIME_PATH to choose one)",
    `Cline gives a plugin ${env['CLINE_PLUGIN_IMPORT_TIMEOUT_MS'] ?? '4000'} ms to load (CLINE_PLUGIN_IMPORT_TIMEOUT_MS) and skips it past that; raise it on a slow machine`,
  ];
  return { ok, problems };
}
