import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createScratchInstall, type OpenCodeRun, type Project, type ScratchInstall } from './harness.js';
import { contentText, sinceLastUser, startStandInModel, systemText, type ChatRequestBody, type RecordedRequest, type Reply, type StandInModel } from './stand-in-model.mjs';

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

/** `lines` lines of 80 characters, each starting with `<tag>-line-<n>`. */
function bigFile(tag: string, lines = 200): string {
  return Array.from({ length: lines }, (_, index) => `${tag}-line-${String(index + 1).padStart(3, '0')} ${'x'.repeat(64)}`).join('\n') + '\n';
}

function lastUserText(body: ChatRequestBody): string {
  const users = body.messages.filter((message) => message.role === 'user');
  return contentText(users[users.length - 1]);
}

/** A responder that follows a script: per prompt keyword, the tool calls to make one step at a time, then a text. */
function scripted(steps: Record<string, Array<Reply['toolCalls']>>, extra: (body: ChatRequestBody, kind: string) => Reply | undefined = () => undefined) {
  return (body: ChatRequestBody, kind: string): Reply | undefined => {
    const special = extra(body, kind);
    if (special) return special;
    if (kind !== 'turn') return undefined;
    const prompt = lastUserText(body);
    const plan = Object.entries(steps).find(([keyword]) => prompt.includes(keyword))?.[1] ?? [];
    const step = sinceLastUser(body).filter((message) => message.role === 'assistant').length;
    const calls = plan[step];
    return calls ? { toolCalls: calls } : { text: `Finished step ${step}.` };
  };
}

/** Turn requests made after the prompt containing `keyword`. */
function turnsAfter(requests: RecordedRequest[], keyword: string): RecordedRequest[] {
  return requests.filter((request) => request.kind === 'turn' && lastUserText(request.body).includes(keyword));
}

function expectCompleted(run: OpenCodeRun): void {
  expect(run.code, `${run.stderr.slice(-1500)}\n${run.stdout.slice(-1500)}`).toBe(0);
  const texts = run.events.filter((event) => event.type === 'text');
  expect(texts.length, run.stdout.slice(-2000)).toBeGreaterThan(0);
}

/** Every tool call of the request has exactly one result. */
function expectPairing(body: ChatRequestBody): void {
  const calls = body.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
  const results = body.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id);
  expect(calls.length).toBeGreaterThan(0);
  expect([...results].sort()).toEqual([...calls].sort());
}

function toolResult(body: ChatRequestBody, marker: string): string | undefined {
  // The result of the call whose arguments name the file.
  const call = body.messages.flatMap((message) => message.tool_calls ?? []).find((entry) => entry.function.arguments.includes(marker));
  return call ? contentText(body.messages.find((message) => message.role === 'tool' && message.tool_call_id === call.id)) : undefined;
}

describe('hookwise in the real OpenCode', () => {
  it('hook-prune replaces old outputs in the request body; every call keeps its result; the stored session keeps the originals', async () => {
    const project = createProject(install, 'prune', {
      baseURL: model.baseURL,
      hookwiseConfig: { plugins: { '@hookwise/hook-prune': { protectTokens: 3_000, minimumTokens: 1_000 } } },
      files: { 'src/a.txt': bigFile('alpha'), 'src/b.txt': bigFile('bravo'), 'src/c.txt': bigFile('charlie') },
    });
    const read = (file: string) => [{ name: 'read', arguments: { filePath: path.join(project.dir, file) } }];
    model.setResponder(scripted({ explore: [read('src/a.txt'), read('src/b.txt')], more: [read('src/c.txt')] }));
    const first = await project.run(['explore', 'the', 'files']);
    expectCompleted(first);
    const sessionId = first.sessionId!;
    expectCompleted(await project.run(['--session', sessionId, 'read', 'one', 'more']));
    const start = model.requests.length;
    expectCompleted(await project.run(['--session', sessionId, 'now', 'finish']));

    const [request] = turnsAfter(model.requests.slice(start), 'finish');
    expect(request).toBeDefined();
    const body = request!.body;
    expectPairing(body);
    // The two outputs of the first prompt are old (two prompts came after them): replaced.
    for (const [file, tag] of [
      ['src/a.txt', 'alpha'],
      ['src/b.txt', 'bravo'],
    ] as const) {
      const output = toolResult(body, file);
      expect(output, file).toBeDefined();
      expect(output).not.toContain(`${tag}-line-001`);
      expect(output).toMatch(/cleared/i);
    }
    // The newest output is intact.
    expect(toolResult(body, 'src/c.txt')).toContain('charlie-line-200');

    const applied = project.events().filter((event) => event.type === 'prune:applied');
    expect(applied.length).toBeGreaterThan(0);
    expect(applied[0]!.tokensReclaimed).toBeGreaterThan(1_000);

    // The stored session still has every original output.
    const stored = await project.exportSession(sessionId);
    const outputs = stored.messages.flatMap((message) => message.parts).filter((part) => part.type === 'tool').map((part) => String(part.state.output));
    for (const tag of ['alpha', 'bravo', 'charlie']) expect(outputs.some((output) => output.includes(`${tag}-line-200`)), tag).toBe(true);
  });
});
