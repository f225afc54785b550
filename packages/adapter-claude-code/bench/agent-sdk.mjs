// Cost of hookwiseHooks() callbacks under the real Agent SDK (the pinned dev dependency),
// offline against the e2e stand-in API, in plain Node from the built dist: the first callback of
// a binding (loads the config, the plugins and the engine) and the later ones. Each round is a
// new binding and a one-prompt session with three tool calls, in a project set up by
// `hookwise init --plugins prune,precompact,suggest`. Prints figures; asserts nothing.
// Usage: node bench/agent-sdk.mjs [rounds=5]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Math.max(1, Number(process.argv[2] ?? 5));

// The e2e suites' stand-in, harness and scripted replies, compiled once (they are TypeScript).
const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'hookwise-bench-sdk-')), 'e2e-helpers.mjs');
await build({
  stdin: {
    contents: "export * from './test/harness.ts'; export * from './test/e2e/stand-in-api.ts'; export * from './test/e2e/scenarios.ts';",
    resolveDir: packageRoot,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: out,
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  // harness.ts finds the package from its own location.
  define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(packageRoot, 'test', 'harness.ts')).href) },
  logLevel: 'error',
});
const { assertBuilt, createScratchProject, bin, cleanEnv, startStandInApi, threeToolCalls } = await import(pathToFileURL(out).href);
assertBuilt();
const { query } = await import('@anthropic-ai/claude-agent-sdk');
const { hookwiseHooks } = await import(pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href);

const api = await startStandInApi(threeToolCalls());
const first = [];
const later = [];
for (let round = 0; round < rounds; round++) {
  const project = createScratchProject('hookwise-bench-sdk-');
  const init = spawnSync(process.execPath, [bin, 'init', '--plugins', 'prune,precompact,suggest'], {
    cwd: project.dir,
    env: { ...cleanEnv(), HOME: project.home },
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
  let calls = 0;
  const hooks = {};
  for (const [event, matchers] of Object.entries(hookwiseHooks({ projectDir: project.dir }))) {
    hooks[event] = matchers.map((matcher) => ({
      ...matcher,
      hooks: matcher.hooks.map((callback) => async (...args) => {
        const isFirst = calls++ === 0;
        const started = performance.now();
        try {
          return await callback(...args);
        } finally {
          (isFirst ? first : later).push(performance.now() - started);
        }
      }),
    }));
  }
  const session = query({
    prompt: 'Run three commands',
    options: {
      cwd: project.dir,
      hooks,
      settingSources: ['project'],
      settings: { disableAllHooks: true },
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      env: {
        PATH: process.env.PATH,
        HOME: project.home,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        IS_SANDBOX: '1',
      },
    },
  });
  for await (const message of session)
    if (message.type === 'result' && message.subtype !== 'success') throw new Error(`session failed: ${JSON.stringify(message)}`);
  project.remove();
}
await api.close();
rmSync(path.dirname(out), { recursive: true, force: true });

const sorted = (values) => [...values].sort((left, right) => left - right);
const at = (values, fraction) => sorted(values)[Math.min(values.length - 1, Math.floor(fraction * values.length))].toFixed(1);
console.log(
  `Agent SDK callbacks, ${rounds} sessions (prune, precompact, suggest; NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'unset'}):`,
);
// Only the first binding of the process imports the plugins; later bindings find them loaded.
console.log(`  first callback, first binding of the process: ${first[0].toFixed(1)} ms`);
if (first.length > 1)
  console.log(
    `  first callback, later bindings: median ${at(first.slice(1), 0.5)} ms, max ${at(first.slice(1), 1)} ms (n=${first.length - 1})`,
  );
console.log(`  later:              median ${at(later, 0.5)} ms, p90 ${at(later, 0.9)} ms, max ${at(later, 1)} ms (n=${later.length})`);
