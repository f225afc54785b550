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
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_CONFIG, createBenchProject, postToolUseEvent, roundsFromArgs, timePaired } from './project.mjs';

const rounds = roundsFromArgs(30);
const { root, project, bin, env } = createBenchProject({ prefix: 'hookwise-snapshot-bench-' });
const scratch = path.join(root, 'scratch');
writeFileSync(path.join(project, 'hookwise.config.json'), BENCH_CONFIG);

const event = postToolUseEvent(project);
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
bundle.exports.run({ event: 'PostToolUse', stdin: Buffer.from(${JSON.stringify(postToolUseEvent(scratch))}), env: { ...process.env, CLAUDE_PROJECT_DIR: ${JSON.stringify(scratch)} }, cwd: ${JSON.stringify(scratch)}, stdoutFd: 2 }).then(() => {
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
timePaired(cases, rounds, `V8 startup snapshot of the run bundle (${Math.round(readFileSync(bundleFile).length / 1024)} KB), hookwise run PostToolUse, 3 plugins — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`);
for (const [name, blob] of Object.entries(blobs)) console.log(`blob ${name}: ${(readFileSync(blob).length / 1048576).toFixed(1)} MB`);
rmSync(root, { recursive: true, force: true });
