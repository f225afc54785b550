import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonLines } from '../../../../test-support/host-e2e.js';
import {
  itemText,
  startStandInResponses,
  type RecordedRequest,
  type Reply,
  type Responder,
  type StandInResponses,
} from '../../../../test-support/stand-in-responses.mjs';
import { createProject, createScratchInstall, packageRoot, type Project, type ScratchInstall } from './harness.js';

/**
 * The real Codex CLI 0.169.0, offline, against the loopback Responses API stand-in, with hookwise
 * installed from the local registry by name and set up by `hookwise init --host codex`. One
 * session checks most scenarios: a project prompt's Compact Summary through a compaction, every
 * tool call counted once, the suggestion at its threshold, the compaction logged with sizes, and a
 * throwing and a stuck plugin beside them.
 */
let install: ScratchInstall;
let model: StandInResponses;

beforeAll(async () => {
  install = await createScratchInstall();
  model = await startStandInResponses(() => undefined, { socketPath: path.join(install.root, 'model.sock') });
}, 600_000);

afterAll(async () => {
  await model?.close();
  await install?.remove();
});

const RULES = 'REVIEW RULES: run the tests after every edit; never push to main.';

const PROJECT_FILES = {
  configName: 'hookwise.config.mjs',
  hookwiseConfig: [
    "import { defineConfig } from '@hookwise/core';",
    "import precompact from '@hookwise/hook-precompact';",
    "import suggest from '@hookwise/hook-suggest';",
    "import broken from './broken-plugin.mjs';",
    // toolCalls 3: the suggestion comes at the third call; a step of 100 keeps it to one.
    'export default defineConfig({ hookTimeoutMs: 1_000, plugins: [precompact(), suggest({ toolCalls: 3, toolCallStep: 100 }), broken()] });',
    '',
  ].join('\n'),
  files: {
    'broken-plugin.mjs': [
      "import { definePlugin } from '@hookwise/core';",
      'const fail = (point) => () => { throw new Error(`broken on purpose at ${point}`); };',
      'export default definePlugin({',
      "  meta: { name: 'broken', version: '1.0.0' },",
      "  on: { 'session:start': fail('session:start'), 'prompt:submit': fail('prompt:submit'), 'tool:before': fail('tool:before'),",
      "    'tool:after': () => new Promise(() => {}), 'compact:after': fail('compact:after'), 'agent:stop': fail('agent:stop') },",
      '});',
      '',
    ].join('\n'),
    '.codex/prompts/review-rules.md': [
      'Review the change against the rules.',
      '',
      '<!-- COMPACT_SUMMARY_START -->',
      RULES,
      '<!-- COMPACT_SUMMARY_END -->',
      '',
    ].join('\n'),
    'a.txt': 'alpha\n',
    'b.txt': 'bravo\n',
  },
};

const shell = (cmd: string) => ({ name: 'exec_command', arguments: { cmd, yield_time_ms: 60_000 } });

/** Four tool calls over three responses (two in parallel), the last reported past the compaction limit, then a final text. */
function session(): Responder {
  const replies: Reply[] = [
    { toolCalls: [shell('cat a.txt'), shell('cat b.txt')], inputTokens: 20_000, cachedTokens: 16_000 },
    { toolCalls: [shell('cat a.txt')], inputTokens: 30_000, cachedTokens: 20_000 },
    { toolCalls: [shell('cat b.txt')], inputTokens: 150_000, cachedTokens: 29_000 },
    { text: 'All done.', inputTokens: 12_000 },
  ];
  let turn = 0;
  return (_body, kind) =>
    kind === 'compaction' ? { text: 'SUMMARY: two files were read.', inputTokens: 150_500 } : replies[Math.min(turn++, replies.length - 1)];
}

const developerTexts = (request: RecordedRequest) =>
  request.body.input.filter((item) => item.type === 'message' && item.role === 'developer').map(itemText);

describe('hookwise in the real Codex CLI', () => {
  let project: Project;
  let start: number;
  let run: Awaited<ReturnType<Project['run']>>;

  beforeAll(async () => {
    project = createProject(install, 'session', { model: { port: model.port, socketPath: model.socketPath! }, ...PROJECT_FILES });
    expect(project.hookwise(['init', '--host', 'codex', '--dry-run'])).toContain('.codex/hooks.json');
    expect(existsSync(path.join(project.dir, '.codex', 'hooks.json'))).toBe(false);
    project.hookwise(['init', '--host', 'codex']);
    model.setResponder(session());
    start = model.requests.length;
    run = await project.run('/review-rules check the build');
  }, 240_000);

  it('init writes .codex/hooks.json once (idempotent) and doctor checks it and names the trust hooks need', () => {
    const hooks = JSON.parse(readFileSync(path.join(project.dir, '.codex', 'hooks.json'), 'utf8'));
    expect(Object.keys(hooks.hooks)).toEqual(
      expect.arrayContaining(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PreCompact', 'PostCompact']),
    );
    for (const [event, groups] of Object.entries<any[]>(hooks.hooks)) {
      expect(groups).toHaveLength(1);
      expect(groups[0].hooks[0].command).toMatch(new RegExp(`node_modules/@hookwise/adapter-codex/bin/hookwise\\.cjs" run ${event}$`));
      expect(groups[0].hooks[0].timeout).toBeLessThanOrEqual(60); // seconds
    }
    expect(project.hookwise(['init', '--host', 'codex'])).toContain('nothing changed');
    // The README's hook call by hand, in the installed project.
    const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
    const byHand = /^echo .*run UserPromptSubmit$/m.exec(readme)?.[0];
    expect(byHand).toBeDefined();
    // The project sits below the install, whose node_modules the README's relative path names.
    const call = spawnSync('sh', ['-c', byHand!.replace(' node_modules/', ` ${install.installDir}/node_modules/`)], {
      cwd: project.dir,
      encoding: 'utf8',
    });
    // Exit 0 and the plugins ran: the broken one's failure is reported on stderr and logged.
    expect(call.status, call.stderr).toBe(0);
    expect(call.stderr).toContain('broken on purpose at prompt:submit');
    expect(project.events().some((event) => event.sessionId === 'readme' && event.type === 'hook:error')).toBe(true);
    const doctor = project.hookwise(['doctor', '--host', 'codex']);
    expect(doctor).toContain('Codex trusts the project');
    expect(doctor).toContain('--dangerously-bypass-hook-trust');
    expect(doctor).toContain('llm:before never runs there');
  });

  it('the session completes although one plugin throws everywhere and one never answers', () => {
    expect(run.code, `${run.stderr.slice(-3000)}\n${run.stdout.slice(-2000)}`).toBe(0);
    expect(readFileSync(path.join(project.codexHome, 'last.txt'), 'utf8')).toContain('All done.');
    const failures = project.events().filter((event) => event.type === 'hook:error');
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((event) => event.pluginName === 'broken')).toBe(true);
    expect(failures.some((event) => event.point === 'tool:after' && event.kind === 'timeout')).toBe(true);
    expect(failures.some((event) => event.point === 'tool:before' && event.kind === 'error')).toBe(true);
  });

  it("keeps the prompt's Compact Summary through the compaction and into the first request after it", () => {
    const requests = model.requests.slice(start);
    const compaction = requests.findIndex((request) => request.kind === 'compaction');
    expect(compaction, 'Codex sent no compaction request').toBeGreaterThan(0);
    const after = requests.slice(compaction + 1).find((request) => request.kind === 'turn');
    expect(after, 'no request after the compaction').toBeDefined();
    expect(
      developerTexts(after!).some((text) => text.includes(RULES)),
      JSON.stringify(after!.body.input).slice(-3000),
    ).toBe(true);
  });

  it('counts every tool call once and delivers the suggestion at its threshold', () => {
    const suggestions = project.events().filter((event) => event.type === 'suggest:compact');
    expect(suggestions).toHaveLength(1);
    expect(suggestions[0]).toMatchObject({ point: 'tool:after', toolCalls: { count: 3, threshold: 3 } });
    // The third call's PostToolUse context reaches the next request, once.
    const requests = model.requests.slice(start);
    const beforeCompaction = requests.slice(
      0,
      requests.findIndex((request) => request.kind === 'compaction'),
    );
    const suggested = beforeCompaction.at(-1)!;
    expect(developerTexts(suggested).filter((text) => text.includes('Consider /compact now.'))).toHaveLength(1);
    expect(developerTexts(beforeCompaction[1]!).some((text) => text.includes('Consider /compact'))).toBe(false);
  });

  it('logs the compaction with its sizes before and after', () => {
    const logFile = path.join(project.dir, '.hookwise', 'logs', 'compaction.jsonl');
    expect(existsSync(logFile), `no compaction log at ${logFile}`).toBe(true);
    const lines = readJsonLines(logFile);
    const compaction = lines.find((record) => record.type === 'compaction');
    // Four calls counted once each, across parallel hooks and the compaction.
    expect(compaction).toMatchObject({ trigger: 'auto', tokensBefore: 150_000, toolCallsTotal: 4, preserved: ['/review-rules'] });
    // Codex writes its estimate of the compacted context right after the compaction.
    expect(compaction!.tokensAfter, JSON.stringify(lines)).toBeGreaterThan(0);
    expect(compaction!.tokensAfter).toBeLessThan(20_000);
  });
});
