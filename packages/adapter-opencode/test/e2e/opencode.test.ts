import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createScratchInstall, type OpenCodeRun, type Project, type ScratchInstall } from './harness.js';
import { BROKEN_PLUGIN_PROJECT, bigFile, expectPairing, lastUserText, scripted } from '../../../../test-support/chat-scenarios.js';
import {
  contentText,
  sinceLastUser,
  startStandInModel,
  systemText,
  type ChatRequestBody,
  type RecordedRequest,
  type StandInModel,
} from './stand-in-model.mjs';

/**
 * The real OpenCode (opencode-ai 1.18.33), offline, against the loopback stand-in model, with
 * hookwise installed from its packed tarballs. One install and one stand-in serve every
 * scenario; each scenario is its own project with its own hookwise config.
 */
let install: ScratchInstall;
let model: StandInModel;

beforeAll(async () => {
  install = createScratchInstall();
  model = await startStandInModel(() => undefined);
}, 600_000);

afterAll(async () => {
  await model?.close();
  if (!process.env.HOOKWISE_E2E_KEEP) install?.remove();
});

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..', '..');

/** Turn requests made after the prompt containing `keyword`. */
function turnsAfter(requests: RecordedRequest[], keyword: string): RecordedRequest[] {
  return requests.filter((request) => request.kind === 'turn' && lastUserText(request.body).includes(keyword));
}

function expectCompleted(run: OpenCodeRun): void {
  expect(run.code, `${run.stderr.slice(-1500)}\n${run.stdout.slice(-1500)}`).toBe(0);
  const texts = run.events.filter((event) => event.type === 'text');
  expect(texts.length, run.stdout.slice(-2000)).toBeGreaterThan(0);
}

function toolResult(body: ChatRequestBody, marker: string): string | undefined {
  // The result of the call whose arguments name the file.
  const call = body.messages.flatMap((message) => message.tool_calls ?? []).find((entry) => entry.function.arguments.includes(marker));
  return call ? contentText(body.messages.find((message) => message.role === 'tool' && message.tool_call_id === call.id)) : undefined;
}

describe('hookwise in the real OpenCode', () => {
  it('hookwise init --host opencode adds the installed plugin to opencode.json (dry run, idempotent) and doctor checks it', () => {
    const project = createProject(install, 'setup', {
      baseURL: model.baseURL,
      hookwiseConfig: { plugins: { '@hookwise/hook-suggest': {} } },
      init: false,
    });
    const opencodeJson = () =>
      JSON.parse(readFileSync(path.join(project.dir, 'opencode.json'), 'utf8')) as { plugin?: unknown[]; provider?: unknown };
    const dryRun = project.hookwise(['init', '--host', 'opencode', '--dry-run']);
    expect(dryRun).toContain('+    "../node_modules/@hookwise/adapter-opencode"');
    expect(opencodeJson().plugin).toBeUndefined();
    let failed: { status?: number; stdout?: string } = {};
    try {
      project.hookwise(['doctor', '--host', 'opencode']);
    } catch (error) {
      failed = error as typeof failed;
    }
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('opencode.json does not load @hookwise/adapter-opencode; run `hookwise init --host opencode`');

    expect(project.hookwise(['init', '--host', 'opencode'])).toContain(
      'OpenCode loads hookwise from ../node_modules/@hookwise/adapter-opencode',
    );
    expect(opencodeJson().plugin).toEqual(['../node_modules/@hookwise/adapter-opencode']);
    expect(opencodeJson().provider).toBeDefined();
    expect(project.hookwise(['init', '--host', 'opencode'])).toContain('nothing changed');
    expect(opencodeJson().plugin).toHaveLength(1);
    const doctor = project.hookwise(['doctor', '--host', 'opencode']);
    expect(doctor).toContain('opencode.json loads @hookwise/adapter-opencode from ../node_modules/@hookwise/adapter-opencode');
    expect(doctor).toContain('No problems found.');
  });

  it('hook-prune replaces old outputs in the request body; every call keeps its result; the stored session keeps the originals', async () => {
    const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    const project = createProject(install, 'prune', {
      baseURL: model.baseURL,
      // The window policy with thresholds low enough for five 16 kB files: the default keeps the
      // reads of files in use, which five reads never leave.
      hookwiseConfig: { plugins: { '@hookwise/hook-prune': { policy: 'window', protectTokens: 3_000, minimumTokens: 1_000 } } },
      files: Object.fromEntries(tags.map((tag) => [`src/${tag}.txt`, bigFile(tag)])),
    });
    const read = (tag: string) => [{ name: 'read', arguments: { filePath: path.join(project.dir, 'src', `${tag}.txt`) } }];
    model.setResponder(scripted({ explore: tags.map(read) }));
    const start = model.requests.length;
    const run = await project.run(['explore', 'the', 'files']);
    expectCompleted(run);

    // The request after the fifth read: the two oldest outputs are replaced, the newest three
    // (hook-prune's keepRecent) are intact, and every call still has its result.
    const last = turnsAfter(model.requests.slice(start), 'explore').at(-1)!;
    expectPairing(last.body);
    expect(last.body.messages.filter((message) => message.role === 'tool')).toHaveLength(5);
    for (const tag of ['alpha', 'bravo']) {
      const output = toolResult(last.body, `${tag}.txt`);
      expect(output, tag).toBeDefined();
      expect(output).not.toContain(`${tag}-line-001`);
      expect(output).toMatch(/cleared/i);
    }
    for (const tag of ['charlie', 'delta', 'echo']) expect(toolResult(last.body, `${tag}.txt`), tag).toContain(`${tag}-line-200`);

    const applied = project.events().filter((event) => event.type === 'prune:applied');
    expect(applied.length).toBeGreaterThan(0);
    expect(applied[0]!.tokensReclaimed).toBeGreaterThan(1_000);

    // The stored session still has every original output.
    const stored = await project.exportSession(run.sessionId!);
    const outputs = stored.messages
      .flatMap((message) => message.parts)
      .filter((part) => part.type === 'tool')
      .map((part) => String(part.state.output));
    for (const tag of tags)
      expect(
        outputs.some((output) => output.includes(`${tag}-line-200`)),
        tag,
      ).toBe(true);
  });

  it("an active command's Compact Summary is in the compaction request and in the first request after it", async () => {
    const project = createProject(install, 'precompact', {
      baseURL: model.baseURL,
      hookwiseConfig: { plugins: { '@hookwise/hook-precompact': {} } },
      files: {
        '.opencode/command/review.md': [
          '---',
          'description: Review a file',
          '---',
          'Review $ARGUMENTS carefully.',
          '',
          '<!-- COMPACT_SUMMARY_START -->',
          'REVIEW-RULE-7: never approve a change without a test; cite line numbers.',
          '<!-- COMPACT_SUMMARY_END -->',
          '',
        ].join('\n'),
        'src/app.ts': 'export const answer = 42;\n',
      },
    });
    model.setResponder((body, kind) => {
      if (kind === 'compaction') return { text: 'Summary: a review of src/app.ts is under way.' };
      if (kind !== 'turn') return undefined;
      if (lastUserText(body).includes('Continue if you have next steps')) return { text: 'Review finished.' };
      const step = sinceLastUser(body).filter((message) => message.role === 'assistant').length;
      // The second answer reports a context near the window: OpenCode compacts automatically.
      return step === 0
        ? { toolCalls: [{ name: 'bash', arguments: { command: 'cat src/app.ts', description: 'show the file' } }] }
        : { text: 'Looked at it.', promptTokens: 195_000 };
    });
    const start = model.requests.length;
    const run = await project.run(['--command', 'review', 'src/app.ts']);
    expectCompleted(run);
    const requests = model.requests.slice(start);
    const compaction = requests.find((request) => request.kind === 'compaction');
    expect(compaction, requests.map((request) => request.kind).join(',')).toBeDefined();
    const compactionPrompt = compaction!.body.messages.map(contentText).join('\n');
    expect(compactionPrompt).toContain('ACTIVE COMMAND: /review');
    expect(compactionPrompt).toContain('REVIEW-RULE-7');

    const after = requests.find((request) => request.index > compaction!.index && request.kind === 'turn');
    expect(after).toBeDefined();
    // The command's own text is gone from the conversation after the compaction; hookwise gave the rule back.
    expect(
      after!.body.messages
        .filter((message) => message.role !== 'system')
        .map(contentText)
        .join('\n'),
    ).not.toContain('REVIEW-RULE-7');
    expect(systemText(after!.body)).toContain('ACTIVE COMMAND: /review');
    expect(systemText(after!.body)).toContain('REVIEW-RULE-7');

    expect(project.recorded().some((event) => event.type === 'session.compacted')).toBe(true);
    const preserved = project.events().find((event) => event.type === 'precompact:preserved');
    expect(preserved?.labels).toContain('/review');
  });

  it('hook-suggest counts tool calls and suggests at a low threshold as a toast, and the session goes on', async () => {
    const project = createProject(install, 'suggest', {
      baseURL: model.baseURL,
      hookwiseConfig: { plugins: { '@hookwise/hook-suggest': { toolCalls: 3, toolCallStep: 2 } } },
    });
    const bash = (step: number) => [{ name: 'bash', arguments: { command: `echo step-${step}`, description: `step ${step}` } }];
    model.setResponder(scripted({ count: [bash(1), bash(2), bash(3), bash(4)] }));
    const run = await project.run(['count', 'to', 'four']);
    expectCompleted(run);
    const tools = run.events.filter((event) => event.type === 'tool_use');
    expect(tools.map((event) => event.part?.state?.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    // The last answer came after the suggestion: the session went on.
    expect(run.events.filter((event) => event.type === 'text').at(-1)?.part?.text).toBe('Finished step 4.');

    const suggestions = project.events().filter((event) => event.type === 'suggest:compact');
    expect(suggestions.length).toBeGreaterThan(0);
    expect(suggestions[0]!.toolCalls.count).toBe(3);
    const toasts = project.recorded().filter((event) => event.type === 'tui.toast.show');
    expect(toasts.map((event) => event.properties.message).join('\n')).toMatch(/3 tool calls since the last compaction/);
    const state = JSON.parse(
      readFileSync(path.join(project.dir, '.hookwise', 'state', run.sessionId!, '@hookwise+hook-suggest.json'), 'utf8'),
    ) as { policy: { toolCalls: number } };
    expect(state.policy.toolCalls).toBe(4);
  });

  it('a hookwise plugin that throws (and one that never answers) does not stop the session', async () => {
    const project = createProject(install, 'broken', {
      baseURL: model.baseURL,
      ...BROKEN_PLUGIN_PROJECT,
    });
    model.setResponder(scripted({ please: [[{ name: 'bash', arguments: { command: 'echo still-working', description: 'probe' } }]] }));
    const run = await project.run(['please', 'run', 'something']);
    expectCompleted(run);
    const tool = run.events.find((event) => event.type === 'tool_use');
    expect(tool?.part?.state?.status).toBe('completed');
    expect(String(tool?.part?.state?.output)).toContain('still-working');
    const failures = project.events().filter((event) => event.type === 'hook:error');
    expect(failures.map((event) => `${event.point}:${event.kind}`)).toEqual(
      expect.arrayContaining(['llm:before:error', 'tool:before:error', 'tool:after:timeout', 'prompt:submit:error']),
    );
    expect(failures.every((event) => event.pluginName === 'broken')).toBe(true);
  });

  it('with an intent selected that has 20+ trace entries, the intent summary is in the system prompt of the next request', async () => {
    const project = createProject(install, 'intent', {
      baseURL: model.baseURL,
      hookwiseConfig: { plugins: { '@hookwise/hook-precompact': {} } },
      files: {
        '.orchestration/agent_trace.jsonl': readFileSync(
          path.join(repoRoot, 'fixtures', 'roo-intent-trace', 'tedoaba-roo-code', 'agent_trace.jsonl'),
          'utf8',
        ),
      },
    });
    model.setResponder(scripted({}));
    const first = await project.run(['hello']);
    expectCompleted(first);
    const before = turnsAfter(model.requests, 'hello').at(-1)!;
    expect(systemText(before.body)).not.toContain('ACTIVE INTENT');

    expect(project.hookwise(['intent', 'select', 'REQ-WEATHER-API-002', '--session', first.sessionId!])).toContain('REQ-WEATHER-API-002');
    const start = model.requests.length;
    expectCompleted(await project.run(['--session', first.sessionId!, 'what', 'next']));
    const [next] = turnsAfter(model.requests.slice(start), 'what next');
    const system = systemText(next!.body);
    expect(system).toContain('## ACTIVE INTENT: REQ-WEATHER-API-002 — last 20 of 35 actions');
    expect(system).toContain('Files changed: main.py');
  });
});
