import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isPrunedOutput } from '@hookwise/hook-prune';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_PLUGIN_PROJECT, bigFile, expectPairing } from '../../../../test-support/chat-scenarios.js';
import {
  contentText,
  startStandInModel,
  type ChatRequestBody,
  type RecordedRequest,
  type Reply,
  type StandInModel,
} from '../../../../test-support/stand-in-chat-model.mjs';
import { createProject, createScratchInstall, type Project, type ScratchInstall } from './harness.js';
import { readJsonLines, type HostRun } from '../../../../test-support/host-e2e.js';

/**
 * The real Cline CLI 3.0.65, offline, against the loopback stand-in model, with hookwise
 * installed from the local registry by name. One install and one stand-in serve every scenario;
 * each scenario is its own project (and HOME) with its own hookwise config. Two Cline runs.
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
const turns = (requests: RecordedRequest[]) => requests.filter((request) => request.kind === 'turn');
const read = (file: string) => ({ name: 'read_files', arguments: { files: [{ path: file }] } });

/** Answers the turns in order (`steps[i]` for the i-th), compactions with a short summary. */
function inOrder(steps: Reply[], last: Reply = { text: 'Finished.' }) {
  let turn = 0;
  return (_body: ChatRequestBody, kind: string): Reply => {
    if (kind === 'compaction') return { text: 'Summary: a review of the files is under way.' };
    return steps[turn++] ?? last;
  };
}

function expectCompleted(run: HostRun): void {
  expect(run.code, `${run.stderr.slice(-2000)}\n${run.stdout.slice(-1500)}`).toBe(0);
  const result = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type?: string; finishReason?: string })
    .find((line) => line.type === 'run_result');
  expect(result?.finishReason, run.stdout.slice(-1500)).toBe('completed');
}

/** Cline's `notice` of a completed compaction on its `--json` stdout. */
function clineCompactionNotice(run: HostRun): Record<string, any> | undefined {
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"completed"')) continue;
    const found = JSON.stringify(JSON.parse(line)).match(/"tokensBefore":(\d+),"tokensAfter":(\d+)/);
    if (found) return { tokensBefore: Number(found[1]), tokensAfter: Number(found[2]) };
  }
  return undefined;
}

/** The tool outputs of a request by call id. */
const toolOutputs = (body: ChatRequestBody) =>
  new Map(body.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id!, contentText(message)]));

/** What Cline stored for each tool call (its `<id>.messages.json`, Anthropic-style blocks): the original outputs. */
function storedOutputs(project: Project): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const message of project.storedMessages())
    for (const block of Array.isArray(message.content) ? message.content : [])
      if (block.type === 'tool_result') outputs.set(block.tool_use_id, JSON.stringify(block.content));
  return outputs;
}

const TAGS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
// 100 lines: a read_files output under hook-prune's 10,000-character arrival trim, so Cline stores it whole.
const files = (tags: string[]) => Object.fromEntries(tags.map((tag) => [`src/${tag}.txt`, bigFile(tag, 100)]));

describe('hookwise in the real Cline CLI', () => {
  it('hookwise init --host cline writes .cline/plugins/hookwise.js (dry run, idempotent, other files kept) and doctor checks it', () => {
    const project = createProject(install, 'setup', {
      model: projectModel(),
      hookwiseConfig: { plugins: { '@hookwise/hook-suggest': {} } },
      files: { '.cline/plugins/other.js': 'export default { name: "other", manifest: { capabilities: [] } };\n' },
      init: false,
    });
    const pluginFile = path.join(project.dir, '.cline', 'plugins', 'hookwise.js');
    expect(project.hookwise(['init', '--host', 'cline', '--dry-run'])).toContain("import * as m from '@hookwise/adapter-cline';");
    expect(existsSync(pluginFile)).toBe(false);
    let failed: { status?: number; stdout?: string } = {};
    try {
      project.hookwise(['doctor', '--host', 'cline']);
    } catch (error) {
      failed = error as typeof failed;
    }
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('run `hookwise init --host cline`');
    expect(project.hookwise(['init', '--host', 'cline'])).toContain('Cline loads hookwise from @hookwise/adapter-cline');
    expect(readFileSync(pluginFile, 'utf8')).toContain('export default p?.name ? p : (p?.default ?? p?.plugin);');
    expect(project.hookwise(['init', '--host', 'cline'])).toContain('nothing changed');
    expect(existsSync(path.join(project.dir, '.cline', 'plugins', 'other.js'))).toBe(true);
    const doctor = project.hookwise(['doctor', '--host', 'cline']);
    expect(doctor).toContain('.cline/plugins/hookwise.js loads @hookwise/adapter-cline');
    expect(doctor).toContain('CLINE_PLUGIN_IMPORT_TIMEOUT_MS');
    expect(doctor).toContain('No problems found.');
  });

  it("nine reads with the window policy: old outputs cleared from the live request only; a command's Compact Summary goes through Cline's compaction", async () => {
    const tags = TAGS.slice(0, 9);
    const project = createProject(install, 'window', {
      model: projectModel(),
      hookwiseConfig: {
        plugins: {
          '@hookwise/hook-prune': { policy: 'window', protectTokens: 3_000, minimumTokens: 1_000 },
          '@hookwise/hook-precompact': {},
          '@hookwise/hook-suggest': {},
        },
      },
      files: {
        ...files(tags),
        '.claude/commands/review.md': [
          'Review $ARGUMENTS carefully.',
          '',
          '<!-- COMPACT_SUMMARY_START -->',
          'REVIEW-RULE-7: never approve a change without a test; cite line numbers.',
          '<!-- COMPACT_SUMMARY_END -->',
          '',
        ].join('\n'),
      },
    });
    // The ninth answer reports a context past 0.9 x 128k: Cline compacts before the next turn.
    const steps: Reply[] = tags.map((tag) => ({ toolCalls: [read(`src/${tag}.txt`)] }));
    steps[8] = { ...steps[8]!, promptTokens: 120_000 };
    // Two requests after the compaction: the second must not report it again.
    steps.push({ toolCalls: [read('src/alpha.txt')] });
    model.setResponder(inOrder(steps));
    const start = model.requests.length;
    const run = await project.run('/review src', { compaction: 'agentic' });
    expectCompleted(run);

    const requests = model.requests.slice(start);
    const compactionIndex = requests.findIndex((request) => request.kind === 'compaction');
    expect(compactionIndex, requests.map((request) => request.kind).join(',')).toBeGreaterThan(-1);
    const before = turns(requests.slice(0, compactionIndex));
    expect(before).toHaveLength(9);

    // Cline's stored transcript keeps every original output.
    const stored = storedOutputs(project);
    expect(stored.size).toBe(10);
    for (const tag of tags)
      expect(
        [...stored.values()].some((output) => output.includes(`${tag}-line-100`)),
        tag,
      ).toBe(true);

    const pruned = before.filter((request) => [...toolOutputs(request.body).values()].some((output) => isPrunedOutput(output)));
    expect(pruned.length).toBeGreaterThan(0);
    for (const request of before.slice(1)) expectPairing(request.body);
    for (const request of pruned) {
      const outputs = [...toolOutputs(request.body).entries()];
      expect(isPrunedOutput(outputs[0]![1])).toBe(true);
      expect(isPrunedOutput(outputs.at(-1)![1])).toBe(false);
      expect(outputs.at(-1)![1]).toContain('-line-100');
    }
    const applied = project.events().filter((event) => event.type === 'prune:applied');
    expect(applied.length).toBeGreaterThan(0);

    // After the compaction, seen from beforeModel alone (no onEvent): each request starts with
    // Cline's summary, with the command's block hookwise handed back into the first one already.
    const after = turns(requests.slice(compactionIndex));
    expect(after).toHaveLength(2);
    for (const request of after) {
      const head = contentText(request.body.messages.find((message) => message.role === 'user'));
      expect(head).toMatch(/^Context summary:/);
      expect(head).toContain('<hookwise>');
      expect(head).toContain('REVIEW-RULE-7');
    }
    const events = project.events();
    // Reported once: compact:before (what precompact preserved) and one line of the compaction log.
    const preserved = events.filter((event) => event.type === 'precompact:preserved');
    expect(preserved).toHaveLength(1);
    expect(preserved[0]!.labels).toContain('/review');
    expect(events.some((event) => event.type === 'hook:error')).toBe(false);
    const compactions = readJsonLines(path.join(project.dir, '.hookwise', 'logs', 'compaction.jsonl')).filter(
      (line) => line.type === 'compaction',
    );
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ trigger: 'auto', preserved: expect.arrayContaining(['/review']) });
    expect(compactions[0]!.tokensBefore).toBeGreaterThan(compactions[0]!.tokensAfter);
    expect(compactions[0]!.tokensAfter).toBeGreaterThan(0);
    // Cline's own figures for the same compaction (its status notice on stdout), for comparison.
    const notice = clineCompactionNotice(run);
    console.info(
      `compaction: Cline ${notice?.tokensBefore} -> ${notice?.tokensAfter}; hookwise's log ${compactions[0]!.tokensBefore} -> ${compactions[0]!.tokensAfter}`,
    );
  });

  it('the default policy commits a batch in a long session; a plugin that throws and one past its deadline leave the session whole', async () => {
    const project = createProject(install, 'broken', {
      model: projectModel(),
      ...BROKEN_PLUGIN_PROJECT,
      // hook-prune keeps the reads of the files of its newest results (`keepFileContext`, 8) as it
      // does every host's file reads; these twelve files are never read again, so 0 lets the
      // default policy's batch rule act on their reads as on any output.
      hookwiseConfig: BROKEN_PLUGIN_PROJECT.hookwiseConfig.replace('prune()', 'prune({ keepFileContext: 0 })'),
      files: { ...BROKEN_PLUGIN_PROJECT.files, ...files(TAGS) },
    });
    model.setResponder(inOrder(TAGS.map((tag) => ({ toolCalls: [read(`src/${tag}.txt`)] }))));
    const start = model.requests.length;
    expectCompleted(await project.run('read every file'));
    const requests = turns(model.requests.slice(start));
    expect(requests).toHaveLength(TAGS.length + 1);
    const last = requests.at(-1)!;
    expectPairing(last.body);
    expect([...toolOutputs(last.body).values()].at(-1)).toContain('lima-line-100');
    expect([...toolOutputs(last.body).values()].some((output) => isPrunedOutput(output))).toBe(true);
    expect(storedOutputs(project).size).toBe(TAGS.length);

    const events = project.events();
    expect(events.filter((event) => event.type === 'prune:applied').length).toBeGreaterThan(0);
    const failures = events.filter((event) => event.type === 'hook:error');
    expect(failures.map((event) => `${event.point}:${event.kind}`)).toEqual(
      expect.arrayContaining([
        'session:start:error',
        'prompt:submit:error',
        'llm:before:error',
        'tool:before:error',
        'tool:after:timeout',
        'agent:stop:error',
      ]),
    );
    expect(failures.every((event) => event.pluginName === 'broken')).toBe(true);
  });
});
