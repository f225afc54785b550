// Cold start of `hookwise run AfterTool` as Gemini CLI runs it (a new process per call, JSON on
// stdin), with hook-precompact and hook-suggest, paired with `node -e 0` in the same loop,
// NODE_EXTRA_CA_CERTS unset. The workspace packages are linked into a scratch project (the
// bundle holds what the project resolves either way). Prints figures; asserts nothing.
// Usage: node bench/run.mjs [rounds=25]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The paired timing loop the Claude Code bench uses: the same figures, side by side.
import { roundsFromArgs, timePaired } from '../../adapter-claude-code/bench/project.mjs';

const packagesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const rounds = roundsFromArgs(25);
const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-bench-')));
const project = path.join(root, 'project');
mkdirSync(path.join(project, 'node_modules', '@hookwise'), { recursive: true });
for (const folder of ['core', 'hook-precompact', 'hook-suggest', 'cli', 'adapter-gemini'])
  symlinkSync(path.join(packagesDir, folder), path.join(project, 'node_modules', '@hookwise', folder), 'dir');
writeFileSync(
  path.join(project, 'hookwise.config.json'),
  JSON.stringify({ plugins: { '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 100000 } } }),
);
const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, ...baseEnv } = process.env;
const env = { ...baseEnv, GEMINI_PROJECT_DIR: project, HOME: path.join(root, 'home') };
const bin = path.join(project, 'node_modules', '@hookwise', 'adapter-gemini', 'bin', 'hookwise.cjs');
const init = spawnSync(process.execPath, [bin, 'init', '--host', 'gemini'], { cwd: project, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
const event = JSON.stringify({
  session_id: 'bench-session',
  transcript_path: path.join(project, 'missing-session.jsonl'),
  cwd: project,
  hook_event_name: 'AfterTool',
  timestamp: new Date().toISOString(),
  tool_name: 'run_shell_command',
  tool_input: { command: 'ls -la', description: 'list files' },
  tool_response: { llmContent: 'total 0\n'.repeat(50), returnDisplay: 'total 0' },
});
timePaired(
  {
    'node -e 0': () => spawnSync(process.execPath, ['-e', '0'], { env, input: event }),
    'hookwise run AfterTool': () => spawnSync(process.execPath, [bin, 'run', 'AfterTool'], { cwd: project, env, input: event }),
    'no config: {} at once': () =>
      spawnSync(process.execPath, [bin, 'run', 'AfterTool'], { cwd: root, env: { ...env, GEMINI_PROJECT_DIR: root }, input: event }),
  },
  rounds,
  `hookwise run AfterTool under Gemini CLI, 2 plugins, JSON config, workspace links — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`,
);
if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
else console.log(root);
