import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedHookwise, readJsonLines, runHost, shellEnv, type HostRun } from '../../../../test-support/host-e2e.js';
import { isolatedCommand, networkNamespaceAvailable } from '../../../../test-support/netns.mjs';
import { installProject, specifiersOf, startRegistry, type LocalRegistry } from '../../../../test-support/registry.js';
// @ts-expect-error: a plain .mjs script without types
import { ensureGemini } from '../../../../scripts/install-gemini.mjs';
import { shellCall, startGeminiStandIn, type GeminiStandIn } from './stand-in-gemini.mjs';

/**
 * The real Gemini CLI 0.61.0, offline (under `unshare -n` where the machine allows it), against
 * a loopback stand-in of the Gemini API, with hookwise installed from the local registry by name
 * and set up by `hookwise init --host gemini`. Three runs of one session: a custom command with
 * two tool calls; `--resume` with a response reporting 900,000 prompt tokens, which compresses
 * mid-turn; `--resume` again. `HOOKWISE_E2E_KEEP=1` keeps the scratch folder.
 */
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PUBLISHED = ['core', 'hook-precompact', 'hook-suggest', 'adapter-gemini', 'cli'] as const;
const RULES = 'BABYSIT RULES: run the tests after every edit; never push to main.';

const CONFIG = `import { defineConfig } from '@hookwise/core';
import { precompact } from '@hookwise/hook-precompact';
import { suggest } from '@hookwise/hook-suggest';

export default defineConfig({
  hookTimeoutMs: 1500,
  plugins: [precompact(), suggest({ toolCalls: 3, toolCallStep: 100 })],
  on: {
    'tool:after': { name: 'throws', handler: () => { throw new Error('e2e plugin exploded'); } },
    'prompt:submit': { name: 'sleeps', handler: () => new Promise((resolve) => setTimeout(resolve, 4000)) },
  },
});
`;
const COMMAND = [
  'description = "Keep an eye on the build"',
  'prompt = """',
  'Watch the build and report.',
  '',
  '<!-- COMPACT_SUMMARY_START -->',
  RULES,
  '<!-- COMPACT_SUMMARY_END -->',
  '"""',
  '',
].join('\n');

let root: string;
let project: string;
let home: string;
let registry: LocalRegistry;
let standIn: GeminiStandIn;
let geminiCli: string;
let isolated = false;
let plan: (request: { index: number; body: any }) => { parts: unknown[]; promptTokens?: number } | undefined = () => undefined;

beforeAll(async () => {
  geminiCli = (ensureGemini() as { geminiCli: string }).geminiCli;
  for (const folder of PUBLISHED)
    if (!existsSync(path.join(packageRoot, '..', folder, 'dist', 'index.js')))
      throw new Error(`packages/${folder} has no dist/ yet; build first`);
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-e2e-')));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    }),
  );
  registry = await startRegistry(PUBLISHED);
  installProject('npm', registry, project, specifiersOf(PUBLISHED), shellEnv());
  writeFileSync(path.join(project, 'hookwise.config.mjs'), CONFIG);
  mkdirSync(path.join(project, '.gemini', 'commands'), { recursive: true });
  writeFileSync(path.join(project, '.gemini', 'commands', 'babysit.toml'), COMMAND);
  // A hook of the user's own: init keeps it.
  writeFileSync(
    path.join(project, '.gemini', 'settings.json'),
    JSON.stringify({ hooks: { AfterTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: 'true' }] }] } }),
  );
  isolated = networkNamespaceAvailable();
  standIn = await startGeminiStandIn({
    socketPath: path.join(root, 'api.sock'),
    answer: (request: { index: number; body: any }) => plan(request),
  });
}, 900_000);

afterAll(async () => {
  await standIn?.close();
  await registry?.stop();
  if (root && !process.env.HOOKWISE_E2E_KEEP) rmSync(root, { recursive: true, force: true });
});

const env = () => ({
  ...shellEnv(),
  HOME: home,
  GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${standIn.port}`,
  GEMINI_API_KEY: 'dummy',
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
});
const hookwise = (args: string[]) =>
  installedHookwise(project, project, { ...shellEnv(), HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true' })(args);

function gemini(prompt: string, resume: boolean): Promise<HostRun> {
  const args = [
    geminiCli,
    '-p',
    prompt,
    '--output-format',
    'json',
    '-y',
    '-m',
    'gemini-2.5-flash',
    ...(resume ? ['--resume', 'latest'] : []),
  ];
  const command = isolatedCommand(process.execPath, args, isolated ? { socketPath: standIn.socketPath!, port: standIn.port } : undefined);
  return runHost(command.command, command.args, project, env());
}

const isToolResultTurn = (body: any) => body.contents.at(-1)?.parts?.some((part: any) => part.functionResponse) === true;
const agentRequests = () => standIn.requests.filter((request: { kind: string }) => request.kind === 'stream');
const compactionLog = () => readJsonLines(path.join(project, '.hookwise', 'logs', 'compaction.jsonl'));
const events = () => readJsonLines(path.join(project, '.hookwise', 'logs', 'events.jsonl'));
function expectWhole(run: HostRun, text: string): void {
  expect(run.code, run.stderr.slice(-3000)).toBe(0);
  expect(JSON.parse(run.stdout).response, run.stderr.slice(-3000)).toContain(text);
}

describe('Gemini CLI 0.61.0 with hookwise', () => {
  it('init writes the settings once, keeps the user hook, and doctor finds it whole', () => {
    expect(hookwise(['init', '--host', 'gemini'])).toContain(
      'hookwise runs on SessionStart, BeforeAgent, BeforeTool, AfterTool, PreCompress, AfterAgent',
    );
    const settings = JSON.parse(readFileSync(path.join(project, '.gemini', 'settings.json'), 'utf8'));
    expect(settings.hooks.AfterTool[0]).toEqual({ matcher: 'write_file', hooks: [{ type: 'command', command: 'true' }] });
    expect(settings.hooks.BeforeAgent).toEqual([
      {
        hooks: [
          {
            type: 'command',
            name: 'hookwise',
            command: 'node $GEMINI_PROJECT_DIR/node_modules/@hookwise/adapter-gemini/bin/hookwise.cjs run BeforeAgent',
            timeout: 60_000,
          },
        ],
      },
    ]);
    expect(hookwise(['init', '--host', 'gemini', '--dry-run'])).not.toContain('settings.json:');
    expect(hookwise(['doctor', '--host', 'gemini'])).toContain('Gemini settings call hookwise for SessionStart, BeforeAgent');
  });

  it('keeps a command summary through a real compression, logs it once with sizes, counts each tool call once, and fails open', async () => {
    // Run 1: the custom command, two tool calls, then text. PreCompress fires before both requests; nothing is compressed.
    plan = ({ body }) =>
      isToolResultTurn(body) ? { parts: [{ text: 'All done.' }] } : { parts: [shellCall('a1', 'echo one'), shellCall('b1', 'echo two')] };
    expectWhole(await gemini('/babysit', false), 'All done.');
    expect(compactionLog()).toEqual([]);
    const failures = events().filter((record) => record.type === 'hook:error');
    expect(failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ hookName: 'throws' }),
        expect.objectContaining({ hookName: 'sleeps', kind: 'timeout' }),
      ]),
    );

    // Run 2: resumed; the first answer reports 900,000 prompt tokens, so the next request compresses first.
    const start = agentRequests().length;
    plan = ({ index, body }) => {
      if (index === start) return { parts: [shellCall('c2', 'echo big')], promptTokens: 900_000 };
      if (index === start + 1) return { parts: [shellCall('d2', 'echo after')] };
      return isToolResultTurn(body) ? { parts: [{ text: 'Resumed and done.' }] } : undefined;
    };
    const second = await gemini('continue', true);
    expectWhole(second, 'Resumed and done.');
    const generate = standIn.requests.filter((request: { kind: string }) => request.kind === 'generate');
    expect(generate).toHaveLength(2); // the compression's summary and its check
    const [afterCompression, withResult] = agentRequests().slice(start + 1);
    expect(afterCompression!.text).toContain('<state_snapshot>');
    // The first request hookwise can reach after a mid-turn compression: the next tool result carries the summary.
    expect(withResult!.text).toContain(RULES);
    // One compaction, with its sizes; none for the PreCompress calls that compressed nothing.
    expect(compactionLog()).toEqual([
      expect.objectContaining({
        host: 'gemini',
        trigger: 'auto',
        tokensBefore: 900_000,
        tokensAfter: expect.any(Number),
        preserved: ['/babysit'],
      }),
    ]);
    expect(compactionLog()[0]!.tokensAfter).toBeLessThan(900_000);
    // --resume sends run 1's tool results twice (0.61.0); every call is still counted once: 2 + 1 before the compaction.
    expect(agentRequests()[start]!.text.split('Output: one').length - 1).toBe(2);
    expect(compactionLog()[0]!.toolCallsTotal).toBe(3);
    // The suggestion at its threshold (the third tool call), shown to the user in Gemini's words.
    expect(second.stderr).toContain('Consider /compress now.');
    expect(events().filter((record) => record.type === 'suggest:compact')).toHaveLength(1);

    // Run 3: the next prompt carries what must survive; the resumed history kept every earlier prompt.
    const third = agentRequests().length;
    plan = () => ({ parts: [{ text: 'Third done.' }] });
    expectWhole(await gemini('next step', true), 'Third done.');
    const request = agentRequests()[third]!;
    const lastUser = request.body.contents.at(-1);
    expect(JSON.stringify(lastUser)).toContain(RULES);
    expect(request.text).toContain('continue');
  }, 600_000);
});
