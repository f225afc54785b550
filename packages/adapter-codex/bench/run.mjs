// Cold start of `hookwise run PostToolUse` under Codex with the three plugins (JSON config): a new
// process per call, as Codex runs it, in a project whose node_modules link the workspace's built
// packages, after `hookwise init --host codex` (which builds the run bundle). Paired with
// `node -e 0` in the same loop (shared cores: only paired ratios compare), NODE_EXTRA_CA_CERTS
// unset. Prints figures; asserts nothing. The timing loop is adapter-claude-code's.
// Usage: node bench/run.mjs [rounds=25]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_CONFIG, roundsFromArgs, timePaired } from '../../adapter-claude-code/bench/project.mjs';

const packagesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'cli', 'adapter-codex'];
for (const folder of PACKAGES)
  if (!existsSync(path.join(packagesDir, folder, 'dist', 'index.js'))) throw new Error(`build first: packages/${folder} has no dist`);

const rounds = roundsFromArgs(25);
const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-codex-bench-')));
const project = path.join(root, 'project');
mkdirSync(path.join(project, 'node_modules', '@hookwise'), { recursive: true });
writeFileSync(path.join(project, 'package.json'), '{"name":"bench","version":"1.0.0","private":true}');
for (const folder of PACKAGES) symlinkSync(path.join(packagesDir, folder), path.join(project, 'node_modules', '@hookwise', folder), 'dir');
writeFileSync(path.join(project, 'hookwise.config.json'), BENCH_CONFIG);

const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, ...baseEnv } = process.env;
const env = { ...baseEnv, HOME: path.join(root, 'home'), CODEX_HOME: path.join(root, 'codex-home') };
const cli = path.join(project, 'node_modules', '@hookwise', 'cli', 'bin', 'hookwise.js');
const init = spawnSync(process.execPath, [cli, 'init', '--host', 'codex'], { cwd: project, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
const bin = path.join(project, 'node_modules', '@hookwise', 'adapter-codex', 'bin', 'hookwise.cjs');

// What Codex 0.169.0 sends on PostToolUse for a small shell call.
const event = JSON.stringify({
  session_id: '01a2252e-cd53-79c2-920f-a840034bbc14',
  turn_id: '01a2252e-cd62-7bc1-bb1e-2a4315e74917',
  transcript_path: path.join(project, 'missing-rollout.jsonl'),
  cwd: project,
  hook_event_name: 'PostToolUse',
  model: 'gpt-5.2-codex',
  permission_mode: 'bypassPermissions',
  tool_name: 'Bash',
  tool_input: { command: 'ls -la' },
  tool_response: 'total 0\n'.repeat(50),
  tool_use_id: 'call_bench',
});

timePaired(
  {
    'node -e 0': () => spawnSync(process.execPath, ['-e', '0'], { env, input: event }),
    'hookwise run (bundle)': () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event }),
    'hookwise run (unbundled)': () =>
      spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env: { ...env, HOOKWISE_NO_BUNDLE: '1' }, input: event }),
  },
  rounds,
  `Codex: hookwise run PostToolUse, 3 plugins, JSON config, workspace links — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`,
);
rmSync(root, { recursive: true, force: true });
