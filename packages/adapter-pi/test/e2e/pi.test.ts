import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isPrunedOutput } from '@hookwise/hook-prune';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createScratchInstall, type PiRun, type Project, type ScratchInstall } from './harness.js';
import { BROKEN_PLUGIN_PROJECT, bigFile, expectPairing, lastUserText, scripted } from '../../../../test-support/chat-scenarios.js';
import {
  contentText,
  startStandInModel,
  systemText,
  type ChatRequestBody,
  type RecordedRequest,
  type StandInModel,
} from './stand-in-model.mjs';

/**
 * The real pi (@earendil-works/pi-coding-agent 1.5.2 on Node 22), offline, against the loopback
 * stand-in model, with hookwise installed from the local registry by name. One install and one
 * stand-in serve every scenario; each scenario is its own project with its own hookwise config.
 */
let install: ScratchInstall;
let model: StandInModel;

beforeAll(async () => {
  install = await createScratchInstall();
  model = await startStandInModel(() => undefined, { socketPath: path.join(install.root, 'model.sock') });
}, 600_000);

afterAll(async () => {
  await model?.close();
  await install?.remove();
});

const projectModel = () => ({ port: model.port, socketPath: model.socketPath });

function expectCompleted(run: PiRun, lastText?: string): void {
  expect(run.code, `${run.stderr.slice(-2000)}\n${run.stdout.slice(-1500)}`).toBe(0);
  if (lastText) expect(run.stdout, run.stderr.slice(-3000)).toContain(lastText);
}

/** The tool outputs of a request by call id. */
function toolOutputs(body: ChatRequestBody): Map<string, string> {
  return new Map(
    body.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id!, contentText(message)]),
  );
}

/** What pi stored for each tool call: the original outputs. */
function storedOutputs(project: Project): Map<string, string> {
  const entries = project.sessionEntries().filter((entry) => entry.type === 'message' && entry.message.role === 'toolResult');
  return new Map(
    entries.map((entry) => [
      entry.message.toolCallId as string,
      (entry.message.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('\n'),
    ]),
  );
}

const turns = (requests: RecordedRequest[]) => requests.filter((request) => request.kind === 'turn');

describe('hookwise in the real pi', () => {
  it('hookwise init --host pi adds the installed extension to .pi/settings.json (dry run, idempotent) and doctor checks it', () => {
    const project = createProject(install, 'setup', {
      model: projectModel(),
      hookwiseConfig: { plugins: { '@hookwise/hook-suggest': {} } },
      init: false,
    });
    const settingsFile = path.join(project.dir, '.pi', 'settings.json');
    expect(project.hookwise(['init', '--host', 'pi', '--dry-run'])).toContain('"../../node_modules/@hookwise/adapter-pi"');
    expect(existsSync(settingsFile)).toBe(false);
    let failed: { status?: number; stdout?: string } = {};
    try {
      project.hookwise(['doctor', '--host', 'pi']);
    } catch (error) {
      failed = error as typeof failed;
    }
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('does not load @hookwise/adapter-pi; run `hookwise init --host pi`');

    expect(project.hookwise(['init', '--host', 'pi'])).toContain('pi loads hookwise from ../../node_modules/@hookwise/adapter-pi');
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual({ extensions: ['../../node_modules/@hookwise/adapter-pi'] });
    expect(project.hookwise(['init', '--host', 'pi'])).toContain('nothing changed');
    const doctor = project.hookwise(['doctor', '--host', 'pi']);
    expect(doctor).toContain('loads @hookwise/adapter-pi from ../../node_modules/@hookwise/adapter-pi');
    expect(doctor).toContain('No problems found.');
  });

  it('hook-prune with its default policy replaces old outputs in the request body; the newest stay whole, pairing holds, the session file keeps every original', async () => {
    // Ten shell reads of files no edit touches, each past the length the default policy keeps.
    const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    const project = createProject(install, 'prune', {
      model: projectModel(),
      hookwiseConfig: { plugins: { '@hookwise/hook-prune': {} } },
      files: Object.fromEntries(tags.map((tag) => [`src/${tag}.txt`, bigFile(tag)])),
      contextWindow: 200_000,
    });
    model.setResponder(scripted({ explore: tags.map((tag) => [{ name: 'bash', arguments: { command: `cat src/${tag}.txt` } }]) }));
    const start = model.requests.length;
    expectCompleted(await project.run(['explore the files']), 'Finished step 10.');

    const requests = turns(model.requests.slice(start));
    const stored = storedOutputs(project);
    // The session file keeps every original output.
    expect(stored.size).toBe(10);
    for (const tag of tags)
      expect(
        [...stored.values()].some((output) => output.includes(`${tag}-line-200`)),
        tag,
      ).toBe(true);

    const pruned = requests.filter((request) => [...toolOutputs(request.body).values()].some((output) => isPrunedOutput(output)));
    expect(pruned.length).toBeGreaterThan(0);
    for (const request of requests) {
      if (request.body.messages.some((message) => message.role === 'tool')) expectPairing(request.body);
    }
    for (const request of pruned) {
      const outputs = [...toolOutputs(request.body).entries()];
      // The newest output is whole (the default's keepRecent: 1); every output not replaced is the original, byte for byte.
      expect(outputs.at(-1)![1]).toBe(stored.get(outputs.at(-1)![0]));
      for (const [id, output] of outputs) if (!isPrunedOutput(output)) expect(output).toBe(stored.get(id));
    }
    // Where the policy pruned: the first pruned request carries exactly as many placeholders as hook-prune decided.
    const applied = project.events().filter((event) => event.type === 'prune:applied');
    expect(applied.length).toBeGreaterThan(0);
    const placeholders = [...toolOutputs(pruned[0]!.body).values()].filter((output) => isPrunedOutput(output)).length;
    expect(placeholders).toBe(applied[0]!.prunedCount);
  });

  it("hook-prune's digest of an old write's input reaches the request body; the session file keeps the content", async () => {
    const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    const project = createProject(install, 'digest', {
      model: projectModel(),
      // Written files are kept whole by default while in use: off here, so the old write is digested.
      hookwiseConfig: { plugins: { '@hookwise/hook-prune': { keepEditedFiles: false, keepFileContext: 0 } } },
      files: Object.fromEntries(tags.map((tag) => [`src/${tag}.txt`, bigFile(tag)])),
      contextWindow: 200_000,
    });
    const content = bigFile('notes', 60);
    model.setResponder(
      scripted({
        draft: [
          [{ name: 'write', arguments: { path: 'notes.txt', content } }],
          ...tags.map((tag) => [{ name: 'bash', arguments: { command: `cat src/${tag}.txt` } }]),
        ],
      }),
    );
    const start = model.requests.length;
    expectCompleted(await project.run(['draft the notes, then read the files']), 'Finished step 11.');
    const requests = turns(model.requests.slice(start)).filter((request) =>
      request.body.messages.some((message) => message.role === 'tool'),
    );
    const writeInputs = requests.map(
      (request) =>
        request.body.messages.flatMap((message) => message.tool_calls ?? []).find((call) => call.function.name === 'write')!.function
          .arguments,
    );
    expect(writeInputs[0]).toContain('notes-line-060');
    expect(writeInputs.some((input) => input.includes('[Old input cleared: ') && !input.includes('notes-line-060'))).toBe(true);
    for (const request of requests) expectPairing(request.body);
    const stored = project
      .sessionEntries()
      .flatMap((entry) =>
        entry.type === 'message' && entry.message.role === 'assistant' ? (entry.message.content as Array<Record<string, any>>) : [],
      )
      .find((block) => block['type'] === 'toolCall' && block['name'] === 'write');
    expect(stored?.['arguments']?.content).toBe(content);
  });

  it("a prompt template's Compact Summary survives a threshold compaction: in pi's summary and the system prompt of the first request after it", async () => {
    const project = createProject(install, 'precompact', {
      model: projectModel(),
      hookwiseConfig: { plugins: { '@hookwise/hook-precompact': {} } },
      compaction: { reserveTokens: 4_000, keepRecentTokens: 500 },
      files: {
        '.pi/prompts/review.md': [
          '---',
          'description: Review a file',
          '---',
          'Review $1 carefully.',
          '',
          '<!-- COMPACT_SUMMARY_START -->',
          'REVIEW-RULE-7: never approve a change without a test; cite line numbers.',
          '<!-- COMPACT_SUMMARY_END -->',
          '',
        ].join('\n'),
        'src/app.ts': bigFile('app', 120),
      },
    });
    model.setResponder(
      scripted(
        {
          'Review src/app.ts': [
            [{ name: 'read', arguments: { path: 'src/app.ts' } }],
            [{ name: 'bash', arguments: { command: 'wc -l src/app.ts' } }],
          ],
        },
        (body, kind, step) => {
          if (kind === 'compaction') return { text: 'Summary: a review of src/app.ts is under way.' };
          // The answer after the second tool reports a context near the window: pi compacts before the next turn.
          if (kind === 'turn' && lastUserText(body).includes('Review src/app.ts') && step === 2)
            return { text: 'Looked at it.', promptTokens: 30_000, cachedTokens: 1_000 };
          return undefined;
        },
      ),
    );
    const start = model.requests.length;
    expectCompleted(await project.run(['/review src/app.ts', 'what next']), 'Finished step 0.');
    const requests = model.requests.slice(start);
    const compactionIndex = requests.findIndex((request) => request.kind === 'compaction');
    expect(compactionIndex, requests.map((request) => request.kind).join(',')).toBeGreaterThan(-1);
    const after = requests.slice(compactionIndex).find((request) => request.kind === 'turn');
    expect(after).toBeDefined();
    const summary = after!.body.messages
      .filter((message) => message.role !== 'system')
      .map(contentText)
      .find((text) => text.includes('<summary>'));
    expect(summary).toContain('Summary: a review of src/app.ts is under way.');
    expect(summary).toContain('ACTIVE COMMAND: /review');
    expect(summary).toContain('REVIEW-RULE-7');
    expect(systemText(after!.body)).toContain('REVIEW-RULE-7');

    const compactions = project.sessionEntries().filter((entry) => entry.type === 'compaction');
    expect(compactions).toHaveLength(1);
    // pi's stored summary is its own; hookwise's block is added per request.
    expect(compactions[0]!.summary).not.toContain('REVIEW-RULE-7');
    expect(project.events().find((event) => event.type === 'precompact:preserved')?.labels).toContain('/review');
    if (process.env['HOOKWISE_PI_WRITE_FIXTURE'])
      copyFileSync(project.sessionFile(), path.join(import.meta.dirname, '..', 'fixtures', 'pi-1.5.2-session.jsonl'));
  });

  it('hook-suggest suggests compacting at 70% of the window from getContextUsage(), and the session goes on', async () => {
    const project = createProject(install, 'suggest', {
      model: projectModel(),
      hookwiseConfig: { plugins: { '@hookwise/hook-suggest': {} } },
    });
    const bash = (step: number) => [{ name: 'bash', arguments: { command: `echo step-${step}` } }];
    model.setResponder(
      scripted({ count: [bash(1), bash(2)] }, (_body, kind, step) =>
        kind === 'turn' && step === 1 ? { toolCalls: bash(2), promptTokens: 23_000 } : undefined,
      ),
    );
    const run = await project.run(['count to two']);
    expectCompleted(run, 'Finished step 2.');
    const suggestions = project.events().filter((event) => event.type === 'suggest:compact');
    expect(suggestions.length).toBeGreaterThan(0);
    const notices = project.events().filter((event) => event.type === 'notice');
    expect(notices.length).toBeGreaterThan(0);
    expect(notices[0]!.about).toContain('capacity');
    expect(notices[0]!.text).toContain('/compact');
    // No UI in print mode: the notice is on stderr.
    expect(run.stderr).toContain(`[hookwise] ${notices[0]!.text}`);
  });

  it('a hookwise plugin that throws (and one that never answers) does not stop the session', async () => {
    const project = createProject(install, 'broken', {
      model: projectModel(),
      ...BROKEN_PLUGIN_PROJECT,
    });
    model.setResponder(scripted({ please: [[{ name: 'bash', arguments: { command: 'echo still-working' } }]] }));
    const start = model.requests.length;
    expectCompleted(await project.run(['please run something']), 'Finished step 1.');
    const last = turns(model.requests.slice(start)).at(-1)!;
    expect([...toolOutputs(last.body).values()].join('\n')).toContain('still-working');
    const failures = project.events().filter((event) => event.type === 'hook:error');
    expect(failures.map((event) => `${event.point}:${event.kind}`)).toEqual(
      expect.arrayContaining(['llm:before:error', 'tool:before:error', 'tool:after:timeout', 'prompt:submit:error', 'agent:stop:error']),
    );
    expect(failures.every((event) => event.pluginName === 'broken')).toBe(true);
  });
});
