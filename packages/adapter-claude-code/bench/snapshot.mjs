// What a V8 startup snapshot of the run bundle would buy (Node 20's `--build-snapshot`), measured
// rather than guessed: the project is set up as in bench/run.mjs (packed tarballs installed with
// npm, `hookwise init`, three plugins), then three blobs are built from its cached run bundle and
// timed against `node -e 0` and the normal `hookwise run PostToolUse`, alternating in one loop
// (paired ratios; NODE_EXTRA_CA_CERTS unset):
//   - load only: the bundle's top level in the heap image, the call not made (the floor of the idea);
//   - cold: the call made from the heap image (functions the call runs compile lazily, no code cache);
//   - warmed: as cold, but one call was made at build time against a scratch copy of the project,
//     so the functions it ran are compiled in the image.
// An experiment, not the shipped path: hookwise does not register snapshot commands (see the
// README's "Cold start"). Prints figures; asserts nothing.
// Usage: node bench/snapshot.mjs [rounds=30]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = path.resolve(packageRoot, '..');
const rounds = Math.max(20, Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 30));
const PACKAGES = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-claude-code'];
for (const folder of PACKAGES) {
  if (!existsSync(path.join(packagesDir, folder, 'dist', 'index.js'))) throw new Error(`build first: packages/${folder} has no dist`);
}

const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-snapshot-bench-')));
const project = path.join(root, 'project');
const scratch = path.join(root, 'scratch');
mkdirSync(project);
writeFileSync(path.join(project, 'package.json'), '{"name":"bench","version":"1.0.0","private":true}');
const tarballs = path.join(root, 'tarballs');
mkdirSync(tarballs);
for (const folder of PACKAGES) execFileSync('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', tarballs], { cwd: path.join(packagesDir, folder), stdio: 'pipe' });
execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...readdirSync(tarballs).map((name) => path.join(tarballs, name))], { cwd: project, stdio: 'pipe' });
const bin = path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');

const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, ...baseEnv } = process.env;
const env = { ...baseEnv, CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') };
const init = spawnSync(process.execPath, [bin, 'init', '--plugins', 'prune,precompact,suggest'], { cwd: project, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
writeFileSync(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 100000 } } }));

const eventFor = (dir) =>
  JSON.stringify({
    session_id: 'bench-session',
    transcript_path: path.join(dir, 'missing-transcript.jsonl'),
    cwd: dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls -la', description: 'list files' },
    tool_response: { stdout: 'total 0\n'.repeat(50), stderr: '', interrupted: false },
    tool_use_id: 'toolu_bench',
  });
const event = eventFor(project);
const first = spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event });
if (first.status !== 0) throw new Error(`hookwise run failed: ${first.stderr}`);
const manifest = JSON.parse(readFileSync(path.join(project, '.hookwise', 'cache', 'run-bundle.json'), 'utf8'));
if (!manifest.bundle) throw new Error(`no run bundle: ${manifest.failed}`);
const bundleFile = path.join(project, '.hookwise', 'cache', manifest.bundle);
mkdirSync(scratch);
cpSync(path.join(project, 'hookwise.config.json'), path.join(scratch, 'hookwise.config.json'));

// The snapshot entry: the bundle's code wrapped as its CommonJS module (so its top level runs
// at build time), then the main function that makes the call from the heap image.
function buildBlob(name, { call, warm }) {
  const entry = path.join(root, `${name}.cjs`);
  const blob = path.join(root, `${name}.blob`);
  const warmUp = `
globalThis[Symbol.for('hookwise.exit')] = () => undefined;
bundle.exports.run({ event: 'PostToolUse', stdin: Buffer.from(${JSON.stringify(eventFor(scratch))}), env: { ...process.env, CLAUDE_PROJECT_DIR: ${JSON.stringify(scratch)} }, cwd: ${JSON.stringify(scratch)}, stdoutFd: 2 }).then(() => {
  for (const name of ['SIGTERM', 'SIGINT', 'uncaughtException', 'unhandledRejection']) process.removeAllListeners(name);
  delete globalThis[Symbol.for('hookwise.exit')];
});`;
  writeFileSync(
    entry,
    [
      'const bundle = { exports: {} };',
      '(function (exports, require, module, __filename, __dirname) {',
      readFileSync(bundleFile, 'utf8'),
      `})(bundle.exports, require, bundle, ${JSON.stringify(bundleFile)}, ${JSON.stringify(path.dirname(bundleFile))});`,
      warm ? warmUp : '',
      "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {",
      call ? "  bundle.exports.run({ event: 'PostToolUse', stdin: require('node:fs').readFileSync(0), env: process.env, cwd: process.cwd(), stdoutFd: 1 });" : '',
      '});',
    ].join('\n'),
  );
  const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', entry], { cwd: root, env, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building ${name} failed: ${built.stderr}`);
  return blob;
}
const blobs = { load: buildBlob('load', { call: false, warm: false }), cold: buildBlob('cold', { call: true, warm: false }), warm: buildBlob('warm', { call: true, warm: true }) };

const cases = {
  'node -e 0': () => spawnSync(process.execPath, ['-e', '0'], { env, input: event }),
  'hookwise run (bundle)': () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event }),
  'snapshot, load only': () => spawnSync(process.execPath, ['--snapshot-blob', blobs.load], { cwd: project, env, input: event }),
  'snapshot, cold': () => spawnSync(process.execPath, ['--snapshot-blob', blobs.cold], { cwd: project, env, input: event }),
  'snapshot, warmed': () => spawnSync(process.execPath, ['--snapshot-blob', blobs.warm], { cwd: project, env, input: event }),
};
const time = (run) => {
  const start = performance.now();
  const result = run();
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return elapsed;
};
for (const run of Object.values(cases)) time(run);
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) for (const [name, run] of Object.entries(cases)) samples[name].push(time(run));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const baseline = samples['node -e 0'];
console.log(`V8 startup snapshot of the run bundle (${Math.round(readFileSync(bundleFile).length / 1024)} KB), hookwise run PostToolUse, 3 plugins — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`);
console.log('case                          median ms   min ms   vs node -e 0 (median of paired ratios)');
for (const [name, values] of Object.entries(samples)) {
  const pairRatio = median(values.map((value, index) => value / baseline[index]));
  console.log(`${name.padEnd(28)} ${median(values).toFixed(1).padStart(9)} ${Math.min(...values).toFixed(1).padStart(8)}   ${pairRatio.toFixed(2)}×`);
}
for (const [name, blob] of Object.entries(blobs)) console.log(`blob ${name}: ${(readFileSync(blob).length / 1048576).toFixed(1)} MB`);
rmSync(root, { recursive: true, force: true });
