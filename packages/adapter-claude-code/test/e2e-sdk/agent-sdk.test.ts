import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { query, type Options, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { createFileStateStore } from '@hookwise/core/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookwiseHooks, type HookwiseHooksOptions, type HookwiseSdkHooks } from '../../src/binding/agent-sdk.js';
import { ADAPTER_NAMESPACE } from '../../src/binding/binding.js';
import type { MappedEvent } from '../../src/binding/events.js';
import { assertBuilt, createScratchProject, hookwise, packageRoot, readJsonl, type ScratchProject } from '../harness.js';
import { BABYSIT_RULES, threeToolCalls, writeBabysitCommand } from '../e2e/scenarios.js';
import { startStandInApi, type RecordedRequest, type StandInApi } from '../e2e/stand-in-api.js';

/**
 * End to end with the real Claude Agent SDK (the pinned dev dependency, which runs its own
 * Claude Code binary), offline against the stand-in Messages API. `hookwiseHooks()` runs in
 * this process, loading the scratch project's `hookwise.config.mjs` like an SDK user's would.
 */
const PINNED_SDK = '0.3.330';
const PINNED_CLAUDE_CODE = '2.1.330';

let api: StandInApi;
const projects: ScratchProject[] = [];
/** Every callback's duration, for the figures printed at the end. */
const callbackTimes: Array<{ event: string; ms: number; first: boolean }> = [];

beforeAll(async () => {
  assertBuilt();
  const sdkPackage = JSON.parse(
    readFileSync(path.join(packageRoot, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'package.json'), 'utf8'),
  ) as { version: string; claudeCodeVersion?: string };
  expect(sdkPackage).toMatchObject({ version: PINNED_SDK, claudeCodeVersion: PINNED_CLAUDE_CODE });
  api = await startStandInApi(threeToolCalls());
});
afterAll(async () => {
  await api?.close();
  for (const project of projects) project.remove();
  const first = callbackTimes.filter((entry) => entry.first).map((entry) => entry.ms);
  const later = callbackTimes
    .filter((entry) => !entry.first)
    .map((entry) => entry.ms)
    .sort((left, right) => left - right);
  if (later.length > 0) {
    const at = (fraction: number) => later[Math.min(later.length - 1, Math.floor(fraction * later.length))]!.toFixed(1);
    // Figures, not assertions: callbacks run in this process, between the SDK's control messages.
    console.log(
      `hookwiseHooks callback cost: first of each binding ${first.map((ms) => ms.toFixed(1)).join(' / ')} ms; later (n=${later.length}) median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`,
    );
  }
});

/** Records the lifecycle points a session ran into the event log, for the assertions. */
const RECORDER = `
const record = (point) => async (payload, context) => {
  await context.eventLog.append({ type: 'e2e:point', point, sessionId: payload.sessionId, source: payload.source, command: payload.command?.name, prompt: payload.prompt });
};
// A plugin written as one object, in the project's config file.
const recorder = definePlugin({ meta: { name: 'e2e-recorder', version: '1.0.0' }, on: { 'session:start': record('session:start'), 'prompt:submit': record('prompt:submit'), 'phase:end': record('phase:end') } });
`;

/** A project with the workspace packages linked and this `hookwise.config.mjs`. */
function projectWithConfig(body: string): ScratchProject {
  const project = createScratchProject('hookwise-sdk-e2e-');
  projects.push(project);
  writeFileSync(path.join(project.dir, 'hookwise.config.mjs'), `import { defineConfig, definePlugin } from '@hookwise/core';\n${body}\n`);
  return project;
}

const standardConfig = (extra = '') => `
import { precompact } from '@hookwise/hook-precompact';
import { suggest } from '@hookwise/hook-suggest';
${RECORDER}
${extra}
export default defineConfig({ plugins: [precompact(), suggest({ toolCalls: 2 }), recorder()]${extra ? ', on: extraHooks' : ''} });
`;

/** Wraps every callback to time it; the first call of a binding loads the engine. */
function timed(hooks: HookwiseSdkHooks): HookwiseSdkHooks {
  let calls = 0;
  const wrapped: HookwiseSdkHooks = {};
  for (const [event, matchers] of Object.entries(hooks) as Array<[MappedEvent, NonNullable<HookwiseSdkHooks[MappedEvent]>]>) {
    wrapped[event] = matchers.map((matcher) => ({
      ...matcher,
      hooks: matcher.hooks.map((callback) => async (...args: Parameters<typeof callback>) => {
        const first = calls++ === 0;
        const started = performance.now();
        try {
          return await callback(...args);
        } finally {
          callbackTimes.push({ event, ms: performance.now() - started, first });
        }
      }),
    }));
  }
  return wrapped;
}

interface Session {
  messages: SDKMessage[];
  sessionId: string;
  results: Array<SDKMessage & { type: 'result' }>;
  /** Requests to the stand-in during this session. */
  requests: RecordedRequest[];
}

/**
 * One streaming-input session: each prompt is sent after the previous turn's result, and the
 * input ends after the last, which ends the session.
 */
async function runSession(
  project: ScratchProject,
  prompts: string[],
  options: { hooks: HookwiseSdkHooks; settingSources?: Options['settingSources']; settings?: Options['settings'] },
): Promise<Session> {
  const firstRequest = api.requests.length;
  let release: () => void = () => {};
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (const prompt of prompts) {
      const answered = new Promise<void>((resolve) => (release = resolve));
      yield { type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null };
      await answered;
    }
  }
  const messages: SDKMessage[] = [];
  let stderr = '';
  const session = query({
    prompt: input(),
    options: {
      cwd: project.dir,
      hooks: timed(options.hooks),
      settingSources: options.settingSources ?? ['project'],
      ...(options.settings ? { settings: options.settings } : {}),
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      stderr: (data) => (stderr += data),
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
  for await (const message of session) {
    messages.push(message);
    if (message.type === 'result') release();
  }
  const results = messages.filter((message): message is SDKMessage & { type: 'result' } => message.type === 'result');
  expect(results, `not one result per prompt; stderr:\n${stderr}`).toHaveLength(prompts.length);
  return { messages, sessionId: results[0]!.session_id, results, requests: api.requests.slice(firstRequest) };
}

const pointsOf = (project: ScratchProject, sessionId: string) =>
  readJsonl(path.join(project.dir, '.hookwise', 'logs', 'events.jsonl')).filter(
    (record) => record.type === 'e2e:point' && record.sessionId === sessionId,
  ) as Array<{ point: string; source?: string; command?: string; prompt?: string }>;

const eventLog = (project: ScratchProject) => readJsonl(path.join(project.dir, '.hookwise', 'logs', 'events.jsonl'));

/** hook-suggest's tool-call suggestion, as the SDK relays a PostToolUse systemMessage. */
const SUGGESTION = /^PostToolUse:Bash says: \d+ tool calls since the last compaction\. Consider compacting/;

const systemEntriesText = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages.filter((message) => message.role === 'system'));

const collectErrors = () => {
  const errors: string[] = [];
  const onError: NonNullable<HookwiseHooksOptions['onError']> = (error, event) =>
    errors.push(`${event}: ${(error as Error)?.message ?? String(error)}`);
  return { errors, onError };
};

describe('hookwiseHooks with the real Agent SDK', { timeout: 120_000 }, () => {
  it('a streaming session with a project command, tool calls, /compact and a prompt after it', async () => {
    const project = projectWithConfig(standardConfig());
    writeBabysitCommand(project.dir);
    // `hookwise init` also wrote command hooks into .claude/settings.json, which settingSources
    // ['project'] loads: the README's setup turns those off so plugins run once.
    expect(hookwise(['init', '--plugins', 'precompact,suggest'], { cwd: project.dir, env: { HOME: project.home } }).code).toBe(0);
    api.setResponder(threeToolCalls());
    const { errors, onError } = collectErrors();
    const session = await runSession(project, ['/babysit watch the build', 'Run three commands', '/compact', 'What next?'], {
      hooks: hookwiseHooks({ projectDir: project.dir, onError }),
      settingSources: ['project'],
      settings: { disableAllHooks: true },
    });
    expect(session.results.map((result) => result.subtype)).toEqual(['success', 'success', 'success', 'success']);
    expect(errors).toEqual([]);

    // session:start, which the SDK never delivers at startup, before the first prompt; then the compaction's.
    const points = pointsOf(project, session.sessionId);
    expect(points.filter((entry) => entry.point === 'session:start').map((entry) => entry.source)).toEqual(['startup', 'compact']);
    expect(points[0]).toMatchObject({ point: 'session:start', source: 'startup' });
    // One prompt:submit per prompt (the built-in /compact fires none), the command only where Claude Code ran it.
    expect(points.filter((entry) => entry.point === 'prompt:submit').map((entry) => [entry.prompt, entry.command ?? null])).toEqual([
      ['/babysit watch the build', 'babysit'],
      ['Run three commands', null],
      ['What next?', null],
    ]);
    // Compaction ran as a sub-agent (SubagentStop with agent_type ""): no phase, no hand-off left behind.
    expect(points.filter((entry) => entry.point === 'phase:end')).toEqual([]);
    expect(eventLog(project).filter((record) => record.type === 'precompact:handoff')).toEqual([]);
    const adapterState = await createFileStateStore({ directory: path.join(project.dir, '.hookwise') }).read<{ handoffs?: object }>(
      session.sessionId,
      ADAPTER_NAMESPACE,
    );
    expect(adapterState?.handoffs).toBeUndefined();

    // The suggestion reaches the SDK's message stream as an informational system message.
    const suggestions = session.messages.filter(
      (message) => message.type === 'system' && message.subtype === 'informational' && SUGGESTION.test(message.content),
    );
    expect(suggestions.length, 'no suggestion in the message stream').toBeGreaterThan(0);

    // The command's Compact Summary is in the compaction request (PreCompact systemMessage → instructions)…
    const compactionAt = session.requests.findIndex((request) => request.kind === 'compaction');
    expect(compactionAt, 'Claude Code sent no compaction request').toBeGreaterThanOrEqual(0);
    const compaction = session.requests[compactionAt]!;
    const instructions = JSON.stringify(compaction.body.messages.at(-1));
    expect(instructions).toContain('## ACTIVE COMMAND: /babysit');
    expect(instructions).toContain(BABYSIT_RULES);
    // …and in the first request after it (SessionStart(compact) additionalContext, a system entry in 2.1.330).
    const after = session.requests.slice(compactionAt + 1).find((request) => request.kind === 'main');
    expect(after, 'no request after compaction').toBeDefined();
    expect(systemEntriesText(after!)).toContain(BABYSIT_RULES);
    // One compaction request: the stand-in answered the compaction prompt (appended to the tool-result turn) as one.
    expect(session.requests.filter((request) => request.kind === 'compaction')).toHaveLength(1);
  });

  it('with settingSources: [] the project command does not exist, and is not carried through compaction', async () => {
    const project = projectWithConfig(standardConfig());
    writeBabysitCommand(project.dir);
    api.setResponder(threeToolCalls());
    const session = await runSession(project, ['/babysit watch the build', '/compact'], {
      hooks: hookwiseHooks({ projectDir: project.dir, onError: () => {} }),
      settingSources: [],
    });
    // Claude Code told the model /babysit did not run; hookwise saw one plain prompt.
    expect(JSON.stringify(session.requests.find((request) => request.kind === 'main')?.body.messages)).toMatch(
      /no command with that name is available/,
    );
    expect(
      pointsOf(project, session.sessionId)
        .filter((entry) => entry.point === 'prompt:submit')
        .map((entry) => [entry.prompt, entry.command ?? null]),
    ).toEqual([['/babysit watch the build', null]]);
    const compaction = session.requests.find((request) => request.kind === 'compaction');
    expect(compaction, 'Claude Code sent no compaction request').toBeDefined();
    expect(compaction!.text).not.toContain('ACTIVE COMMAND');
    expect(compaction!.text).not.toContain(BABYSIT_RULES);
  });

  it('completes the session when a hook throws; the failure is in the event log and the other plugins still run', async () => {
    const project = projectWithConfig(
      standardConfig(`const fail = () => { throw new Error('thrown by the e2e hook'); };
const throws = { name: 'throws', handler: fail };
const extraHooks = { 'session:start': throws, 'prompt:submit': throws, 'tool:before': throws, 'tool:after': throws, 'agent:stop': throws };`),
    );
    api.setResponder(threeToolCalls());
    const { errors, onError } = collectErrors();
    const session = await runSession(project, ['Run three commands'], { hooks: hookwiseHooks({ projectDir: project.dir, onError }) });
    expect(session.results[0]).toMatchObject({ subtype: 'success', is_error: false, result: 'Done.' });
    expect(errors).toEqual([]);
    const failures = eventLog(project).filter((record) => record.type === 'hook:error' && record.hookName === 'throws');
    expect(new Set(failures.map((record) => record.point))).toEqual(
      new Set(['session:start', 'prompt:submit', 'tool:before', 'tool:after', 'agent:stop']),
    );
    expect(
      session.messages.some(
        (message) => message.type === 'system' && message.subtype === 'informational' && SUGGESTION.test(message.content),
      ),
    ).toBe(true);
  });

  it('completes the session when the config throws on import, reporting it through onError', async () => {
    const project = projectWithConfig(`throw new Error('config exploded on import');\nexport default defineConfig({});`);
    api.setResponder(threeToolCalls());
    const { errors, onError } = collectErrors();
    const session = await runSession(project, ['Run three commands'], { hooks: hookwiseHooks({ projectDir: project.dir, onError }) });
    expect(session.results[0]).toMatchObject({ subtype: 'success', is_error: false, result: 'Done.' });
    expect(errors.length).toBeGreaterThan(0);
    expect(
      errors.every((line) => line.includes('config exploded on import')),
      errors.join('\n'),
    ).toBe(true);
  });

  describe('a hook slower than the matcher timeout', () => {
    const slowConfig = () =>
      projectWithConfig(
        standardConfig(`// Sleeps past the matcher timeout on the second tool result, and ignores its abort signal.
let calls = 0;
const extraHooks = { 'tool:after': { name: 'sleeps', handler: () => (++calls === 2 ? new Promise((resolve) => setTimeout(resolve, 4000)) : undefined) } };`),
      );

    it('with timeout set through hookwiseHooks: hookwise returns what finished before the SDK cuts, and reports the cut', async () => {
      const project = slowConfig();
      api.setResponder(threeToolCalls());
      const { errors, onError } = collectErrors();
      const session = await runSession(project, ['Run three commands'], {
        hooks: hookwiseHooks({ projectDir: project.dir, timeout: 2, onError }),
      });
      expect(session.results[0]).toMatchObject({ subtype: 'success', is_error: false });
      // The second tool call is where suggest's notice is due; it finished before the sleeper.
      expect(
        session.messages.some(
          (message) => message.type === 'system' && message.subtype === 'informational' && SUGGESTION.test(message.content),
        ),
      ).toBe(true);
      expect(errors).toEqual([
        expect.stringMatching(
          /^PostToolUse: stopped waiting after \d+ ms, before the SDK's 2 s matcher timeout; returned what finished; cut: config › sleeps$/,
        ),
      ]);
      expect(eventLog(project).filter((record) => record.type === 'hook:error')).toEqual([
        expect.objectContaining({ point: 'tool:after', hookName: 'sleeps', kind: 'timeout' }),
      ]);
    });

    it('with the timeout set on the matcher behind hookwise: the SDK cuts the callback, reported through onError and the event log', async () => {
      const project = slowConfig();
      api.setResponder(threeToolCalls());
      const { errors, onError } = collectErrors();
      const hooks = hookwiseHooks({ projectDir: project.dir, onError });
      // hookwise plans for the SDK's default (600 s); the SDK aborts at 2 s.
      hooks.PostToolUse![0]!.timeout = 2;
      const session = await runSession(project, ['Run three commands'], { hooks });
      expect(session.results[0]).toMatchObject({ subtype: 'success', is_error: false });
      expect(errors).toEqual([
        expect.stringMatching(
          /^PostToolUse: the Agent SDK aborted the PostToolUse callback after \d+ ms \(its matcher timeout, or an interrupt\); its output is lost\. hookwise planned for 600 s: /,
        ),
      ]);
      expect(eventLog(project).filter((record) => record.type === 'hook:error' && record.pluginName === 'hookwise')).toEqual([
        expect.objectContaining({
          sessionId: session.sessionId,
          event: 'PostToolUse',
          point: 'tool:after',
          hookName: 'agent-sdk',
          kind: 'timeout',
        }),
      ]);
    });
  });
});
