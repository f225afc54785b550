import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isPrunedOutput } from '@hookwise/hook-prune';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createScratchInstall, packageRoot, type Project, type ScratchInstall } from './harness.js';
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
 * The real Kilo CLI (installed by scripts/install-kilo.mjs: @kilocode/cli 7.8.1, whose Linux
 * binary the registry has up to 7.7.9), offline, against the loopback stand-in model, with
 * hookwise installed from the local registry by name. Kilo runs take 20-60 s here, so three
 * sessions check everything: two prune policies, and one that compacts with a broken plugin beside.
 */
let install: ScratchInstall;
let model: StandInModel;

beforeAll(async () => {
  install = await createScratchInstall();
  process.stderr.write(
    `kilo e2e: Kilo binary ${install.kiloVersion}${install.isolated ? ', under unshare -n' : ', on the host loopback'}\n`,
  );
  model = await startStandInModel(() => undefined, { socketPath: path.join(install.root, 'model.sock') });
}, 600_000);

afterAll(async () => {
  await model?.close();
  await install?.remove();
});

const projectModel = () => ({ baseURL: model.baseURL, port: model.port, socketPath: model.socketPath });
const turns = (requests: RecordedRequest[]) => requests.filter((request) => request.kind === 'turn');

function expectCompleted(run: { code: number | null; stdout: string; stderr: string }, lastText?: string): void {
  expect(run.code, `${run.stderr.slice(-2000)}\n${run.stdout.slice(-1500)}`).toBe(0);
  if (lastText) expect(run.stdout, run.stderr.slice(-3000)).toContain(lastText);
}

/** The tool outputs of a request by call id. */
function toolOutputs(body: ChatRequestBody): Map<string, string> {
  return new Map(
    body.messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id!, contentText(message)]),
  );
}

/** What `kilo export` shows for each tool call: the stored outputs. */
function storedOutputs(project: Project, sessionId: string): Map<string, string> {
  const { session } = project.exportSession(sessionId);
  const parts = session.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool');
  return new Map(parts.map((part) => [part.callID as string, String(part.state.output)]));
}

/**
 * Every request with tool results keeps its pairing; where outputs were cleared, the newest is
 * whole and every output not cleared is the stored original. Gives the requests that were pruned.
 */
function expectPrunedOnlyInRequests(requests: RecordedRequest[], stored: Map<string, string>, tags: string[]): RecordedRequest[] {
  expect(stored.size).toBe(tags.length);
  for (const tag of tags)
    expect(
      [...stored.values()].some((output) => output.includes(`${tag}-line-200`)),
      tag,
    ).toBe(true);
  for (const request of requests) if (request.body.messages.some((message) => message.role === 'tool')) expectPairing(request.body);
  const pruned = requests.filter((request) => [...toolOutputs(request.body).values()].some((output) => isPrunedOutput(output)));
  for (const request of pruned) {
    const outputs = [...toolOutputs(request.body).entries()];
    expect(isPrunedOutput(outputs.at(-1)![1])).toBe(false);
    for (const [id, output] of outputs) if (!isPrunedOutput(output)) expect(output).toBe(stored.get(id));
  }
  return pruned;
}

describe('hookwise in the real Kilo', () => {
  it('hookwise init --host kilo adds the installed plugin to kilo.jsonc, comments kept (dry run, idempotent), and doctor checks it', () => {
    const project = createProject(install, 'setup', { model: projectModel(), hookwiseConfig: { plugins: {} }, init: false });
    const configFile = path.join(project.dir, 'kilo.jsonc');
    const original = readFileSync(configFile, 'utf8');
    expect(project.hookwise(['init', '--host', 'kilo', '--dry-run'])).toContain('"../node_modules/@hookwise/adapter-kilo"');
    expect(readFileSync(configFile, 'utf8')).toBe(original);
    let failed: { status?: number; stdout?: string } = {};
    try {
      project.hookwise(['doctor', '--host', 'kilo']);
    } catch (error) {
      failed = error as typeof failed;
    }
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('kilo.jsonc does not load @hookwise/adapter-kilo; run `hookwise init --host kilo`');

    expect(project.hookwise(['init', '--host', 'kilo'])).toContain('Kilo loads hookwise from ../node_modules/@hookwise/adapter-kilo');
    const written = readFileSync(configFile, 'utf8');
    expect(written).toContain('// Kilo config of this project');
    expect(written).toContain('"plugin": [\n    "../node_modules/@hookwise/adapter-kilo"\n  ]');
    expect(written.replace(/,\n {2}"plugin": \[\n.*\n {2}\]/, '')).toBe(original);
    expect(project.hookwise(['init', '--host', 'kilo'])).toContain('nothing changed');
    const doctor = project.hookwise(['doctor', '--host', 'kilo']);
    expect(doctor).toContain('kilo.jsonc loads @hookwise/adapter-kilo from ../node_modules/@hookwise/adapter-kilo');
    expect(doctor).toContain('No problems found.');
  });

  it('nine reads: the window policy clears the oldest outputs from the live request, export keeps them; suggestions are logged', async () => {
    const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india'];
    const project = createProject(install, 'window', {
      model: projectModel(),
      hookwiseConfig: {
        plugins: {
          '@hookwise/hook-prune': { policy: 'window', protectTokens: 3_000, minimumTokens: 1_000 },
          '@hookwise/hook-suggest': { toolCalls: 3, toolCallStep: 2 },
        },
      },
      files: Object.fromEntries(tags.map((tag) => [`src/${tag}.txt`, bigFile(tag)])),
    });
    const read = (tag: string) => [{ name: 'read', arguments: { filePath: path.join(project.dir, 'src', `${tag}.txt`) } }];
    model.setResponder(scripted({ explore: tags.map(read) }));
    const start = model.requests.length;
    const run = await project.run(['explore', 'the', 'files']);
    expectCompleted(run, 'Finished step 9.');
    const requests = turns(model.requests.slice(start));
    expect(requests).toHaveLength(10);

    const stored = storedOutputs(project, run.sessionId!);
    const pruned = expectPrunedOnlyInRequests(requests, stored, tags);
    expect(pruned.length).toBeGreaterThan(0);
    // The last request: the oldest read is cleared, the newest whole.
    const last = [...toolOutputs(requests.at(-1)!.body).values()];
    expect(last).toHaveLength(9);
    expect(isPrunedOutput(last[0]!)).toBe(true);
    expect(last.at(-1)).toContain('india-line-200');
    const applied = project.events().filter((event) => event.type === 'prune:applied');
    expect(applied.length).toBeGreaterThan(0);
    expect(applied[0]!.tokensReclaimed).toBeGreaterThan(1_000);

    const suggestions = project.events().filter((event) => event.type === 'suggest:compact');
    expect(suggestions.length).toBeGreaterThan(0);
    expect(suggestions[0]!.toolCalls.count).toBe(3);
  });

  it('ten shell reads: the default policy commits a batch; the newest stays whole, pairing holds, export keeps every original', async () => {
    const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    const project = createProject(install, 'default', {
      model: projectModel(),
      hookwiseConfig: { plugins: { '@hookwise/hook-prune': {} } },
      files: Object.fromEntries(tags.map((tag) => [`src/${tag}.txt`, bigFile(tag)])),
    });
    model.setResponder(
      scripted({ survey: tags.map((tag) => [{ name: 'bash', arguments: { command: `cat src/${tag}.txt`, description: `show ${tag}` } }]) }),
    );
    const start = model.requests.length;
    const run = await project.run(['survey', 'the', 'files']);
    expectCompleted(run, 'Finished step 10.');
    const requests = turns(model.requests.slice(start));
    const pruned = expectPrunedOnlyInRequests(requests, storedOutputs(project, run.sessionId!), tags);
    expect(pruned.length).toBeGreaterThan(0);
    const applied = project.events().filter((event) => event.type === 'prune:applied');
    expect(applied.length).toBeGreaterThan(0);
    const placeholders = [...toolOutputs(pruned[0]!.body).values()].filter((output) => isPrunedOutput(output)).length;
    expect(placeholders).toBe(applied[0]!.prunedCount);
  });

  it("a command's Compact Summary survives Kilo's compaction while a plugin throws at every point and one never answers", async () => {
    const project = createProject(install, 'precompact', {
      model: projectModel(),
      configName: 'hookwise.config.mjs',
      hookwiseConfig: [
        "import { defineConfig } from '@hookwise/core';",
        "import precompact from '@hookwise/hook-precompact';",
        "import broken from './broken-plugin.mjs';",
        'export default defineConfig({ hookTimeoutMs: 1_000, plugins: [precompact(), broken()] });',
        '',
      ].join('\n'),
      files: {
        ...BROKEN_PLUGIN_PROJECT.files,
        '.kilo/command/review.md': [
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
      // The tool call reports a context near the window: Kilo compacts before the next step.
      return body.messages.some((message) => message.role === 'tool')
        ? { text: 'Looked at it.' }
        : { toolCalls: [{ name: 'bash', arguments: { command: 'cat src/app.ts', description: 'show the file' } }], promptTokens: 195_000 };
    });
    const start = model.requests.length;
    const run = await project.run(['--command', 'review', 'src/app.ts']);
    expectCompleted(run, 'Review finished.');
    const tool = run.events.find((event) => event.type === 'tool_use');
    expect(String(tool?.part?.state?.output)).toContain('export const answer = 42;');

    const requests = model.requests.slice(start);
    const compaction = requests.find((request) => request.kind === 'compaction');
    expect(compaction, requests.map((request) => request.kind).join(',')).toBeDefined();
    const compactionPrompt = compaction!.body.messages.map(contentText).join('\n');
    expect(compactionPrompt).toContain('ACTIVE COMMAND: /review');
    expect(compactionPrompt).toContain('REVIEW-RULE-7');
    const after = requests.find((request) => request.index > compaction!.index && request.kind === 'turn');
    expect(systemText(after!.body)).toContain('ACTIVE COMMAND: /review');
    expect(systemText(after!.body)).toContain('REVIEW-RULE-7');
    expect(project.events().find((event) => event.type === 'precompact:preserved')?.labels).toContain('/review');

    const failures = project.events().filter((event) => event.type === 'hook:error');
    expect(failures.map((event) => `${event.point}:${event.kind}`)).toEqual(
      expect.arrayContaining(['llm:before:error', 'tool:before:error', 'tool:after:timeout', 'prompt:submit:error']),
    );
    expect(failures.every((event) => event.pluginName === 'broken')).toBe(true);

    // Kilo's stored session: the command's message, the compaction and its summary.
    const { session } = project.exportSession(run.sessionId!);
    const texts = session.messages.flatMap((message) =>
      message.parts.filter((part) => part.type === 'text').map((part) => String(part.text)),
    );
    expect(texts.some((text) => text.includes('REVIEW-RULE-7'))).toBe(true);
    expect(session.messages.some((message) => message.parts.some((part) => part.type === 'compaction'))).toBe(true);
    expect(session.messages.some((message) => message.info.summary === true)).toBe(true);
    // `hookwise report`'s Kilo fixture (packages/cli/src/report/__fixtures__/kilo/README.md says how it was made).
    if (process.env['HOOKWISE_KILO_WRITE_FIXTURE']) {
      const renamed = JSON.stringify(session, null, 2).replaceAll(project.dir, '/project').replaceAll(project.dir.slice(1), 'project');
      writeFileSync(
        path.resolve(packageRoot, '..', 'cli', 'src', 'report', '__fixtures__', 'kilo', `kilo-${install.kiloVersion}-export.json`),
        `${renamed}\n`,
      );
    }
  });
});
