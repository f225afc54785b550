// What a V8 startup snapshot of the run bundle would buy (Node 20's `--build-snapshot`), measured
// rather than guessed: the project is set up as in bench/run.mjs (packed tarballs installed with
// npm, `hookwise init`, three plugins), then two blobs are built from its cached run bundle and
// timed against `node -e 0` and the normal `hookwise run PostToolUse`, alternating in one loop
// (paired ratios; NODE_EXTRA_CA_CERTS unset):
//   - load only: the bundle's top level and the config's modules in the heap image, the call not
//     made (the floor of the idea);
//   - cold: the call made from the heap image (functions the call runs compile lazily, no code cache).
// A "warmed" image (one call made at build time) can no longer be built: the call runs hooks under
// a watchdog, a vm.Script, and V8 refuses to serialise one ("Check failed:
// handle_checker.CheckGlobalAndEternalHandles()"); before the watchdog it measured 1.69–1.84×.
// An experiment, not the shipped path: hookwise does not register snapshot commands (see the
// README's "Cold start"). Prints figures; asserts nothing.
// Usage: node bench/snapshot.mjs [rounds=30]
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_CONFIG, createBenchProject, postToolUseEvent, roundsFromArgs, timePaired } from './project.mjs';

const rounds = roundsFromArgs(30);
const { root, project, bin, env } = createBenchProject({ prefix: 'hookwise-snapshot-bench-' });
writeFileSync(path.join(project, 'hookwise.config.json'), BENCH_CONFIG);

const event = postToolUseEvent(project);
const first = spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event });
if (first.status !== 0) throw new Error(`hookwise run failed: ${first.stderr}`);
const manifest = JSON.parse(readFileSync(path.join(project, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'), 'utf8'));
if (!manifest.bundle) throw new Error(`no run bundle: ${manifest.failed}`);
const bundleFile = path.join(project, '.hookwise', 'cache', 'claude-code', manifest.bundle);

// The snapshot entry: the bundle's code wrapped as its CommonJS module (so its top level runs
// at build time), then the main function that makes the call from the heap image.
function buildBlob(name, { call }) {
  const entry = path.join(root, `${name}.cjs`);
  const blob = path.join(root, `${name}.blob`);
  writeFileSync(
    entry,
    [
      'const bundle = { exports: {} };',
      '(function (exports, require, module, __filename, __dirname) {',
      readFileSync(bundleFile, 'utf8'),
      `})(bundle.exports, require, bundle, ${JSON.stringify(bundleFile)}, ${JSON.stringify(path.dirname(bundleFile))});`,
      // The config's modules (plugins, hook files) run their top level in the call, under a
      // watchdog (a vm.Script, which a heap image cannot hold): run their loaders directly here,
      // so that every image holds them.
      'for (const loaders of [bundle.exports.config.plugins ?? {}, bundle.exports.config.hookModules ?? {}]) for (const load of Object.values(loaders)) load();',
      "if (bundle.exports.config.kind === 'module') bundle.exports.config.load();",
      "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {",
      call
        ? "  bundle.exports.run({ event: 'PostToolUse', stdin: require('node:fs').readFileSync(0), env: process.env, cwd: process.cwd(), stdoutFd: 1 });"
        : '',
      '});',
    ].join('\n'),
  );
  const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', entry], { cwd: root, env, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building ${name} failed: ${built.stderr}`);
  return blob;
}
const blobs = { load: buildBlob('load', { call: false }), cold: buildBlob('cold', { call: true }) };

const cases = {
  'node -e 0': () => spawnSync(process.execPath, ['-e', '0'], { env, input: event }),
  'hookwise run (bundle)': () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event }),
  'snapshot, load only': () => spawnSync(process.execPath, ['--snapshot-blob', blobs.load], { cwd: project, env, input: event }),
  'snapshot, cold': () => spawnSync(process.execPath, ['--snapshot-blob', blobs.cold], { cwd: project, env, input: event }),
};
timePaired(
  cases,
  rounds,
  `V8 startup snapshot of the run bundle (${Math.round(readFileSync(bundleFile).length / 1024)} KB), hookwise run PostToolUse, 3 plugins — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`,
);
for (const [name, blob] of Object.entries(blobs)) console.log(`blob ${name}: ${(readFileSync(blob).length / 1048576).toFixed(1)} MB`);
rmSync(root, { recursive: true, force: true });
