import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { definePlugin, type PluginInstance } from '@hookwise/core';
import { createMemoryEventLog, silentLogger } from '@hookwise/core/host';
import { isPrunedOutput, prune } from '@hookwise/hook-prune';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedToolOutputs, type ObservedCall } from '../test/support/expected-prunes.js';
import type { HookwiseErrorReport, HookwiseNotice } from './binding.js';
import { hookwiseMiddleware } from './middleware.js';
import { fromPrompt, type PromptMessage } from './prompt.js';

/**
 * The middleware on ai 6's mock model (the majors' wire checks are in test/e2e): what the model
 * receives, what the app keeps, and what reaches the app's callbacks.
 */

type V3Options = Parameters<MockLanguageModelV3['doGenerate']>[0];

const usage = (input: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
});

/** A model that reads `files` one by one with the `read` tool, then answers. */
function readingModel(files: number, inputTokens = 1_000) {
  let call = 0;
  return new MockLanguageModelV3({
    modelId: 'mock-model',
    doGenerate: async () => {
      call++;
      if (call <= files)
        return {
          content: [
            { type: 'tool-call', toolCallId: `call-${call}`, toolName: 'read', input: JSON.stringify({ path: `file-${call}.ts` }) },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: usage(inputTokens * call),
          warnings: [],
        };
      return {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: usage(inputTokens * call),
        warnings: [],
      };
    },
  });
}

const readTool = tool({
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path: file }) => `// ${file}\n${'export const line = "some source text";\n'.repeat(200)}`,
});

/** Records what the app's call held before hookwise saw it (the outer middleware runs first). */
function recorder(calls: ObservedCall[]): LanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      calls.push({ prompt: structuredClone(params.prompt) as PromptMessage[] });
      return params;
    },
  };
}

const toolOutputs = (prompt: unknown): Map<string, string> => {
  const outputs = new Map<string, string>();
  for (const message of fromPrompt(prompt as PromptMessage[]).messages)
    for (const part of message.parts)
      if (part.type === 'tool-result')
        outputs.set(
          part.toolCallId,
          typeof part.output === 'string' ? part.output : part.output.map((item) => (item.type === 'text' ? item.text : '')).join('\n'),
        );
  return outputs;
};

const systemTexts = (prompt: V3Options['prompt']) =>
  prompt.filter((message) => message.role === 'system').map((message) => message.content);

const folders: string[] = [];
function project(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-ai-sdk-')));
  folders.push(dir);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const aggressivePrune = () => prune({ policy: 'window', keepRecent: 1, protectTokens: 0, minimumTokens: 0 });

describe('pruning on every model call', () => {
  it("sends hook-prune's placeholders to the model on each step while the app keeps the originals", async () => {
    const model = readingModel(6);
    const calls: ObservedCall[] = [];
    const hookwise = hookwiseMiddleware({ sessionId: 'chat-1', plugins: [aggressivePrune()], logger: silentLogger });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: [recorder(calls), hookwise] }),
      tools: { read: readTool },
      prompt: 'Read the six files.',
      stopWhen: stepCountIs(10),
    });

    expect(model.doGenerateCalls).toHaveLength(7);
    // Each call carries the previous call's usage as the context size: the expectation sees the same.
    const expected = await expectedToolOutputs(
      aggressivePrune(),
      calls.map((call, index) => ({ ...call, model: 'mock-model', ...(index > 0 ? { contextTokens: 1_000 * index } : {}) })),
    );
    const placeholders = model.doGenerateCalls.map((options, index) => {
      const sent = toolOutputs(options.prompt);
      expect(sent).toEqual(expected[index]);
      return [...sent.values()].filter((output) => isPrunedOutput(output)).length;
    });
    expect(placeholders.some((count) => count > 0)).toBe(true);
    // The app's own history is untouched.
    const kept = toolOutputs(
      result.response.messages.map((message) => ({
        ...message,
        content: typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content,
      })),
    );
    expect(kept.size).toBe(6);
    for (const output of kept.values()) expect(isPrunedOutput(output)).toBe(false);
  });

  it('keeps every tool call paired with its result on the wire', async () => {
    const model = readingModel(5);
    const hookwise = hookwiseMiddleware({ plugins: [aggressivePrune()], logger: silentLogger });
    await generateText({
      model: wrapLanguageModel({ model, middleware: hookwise }),
      tools: { read: readTool },
      prompt: 'Read.',
      stopWhen: stepCountIs(10),
    });
    const last = model.doGenerateCalls.at(-1)!.prompt;
    const calls = last.flatMap((message) =>
      message.role === 'assistant' ? message.content.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId) : [],
    );
    const results = last.flatMap((message) =>
      message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result').map((part) => part.toolCallId) : [],
    );
    expect(calls).toHaveLength(5);
    expect(results).toEqual(calls);
  });
});

describe('system text', () => {
  it("puts what llm:before hooks add after the app's system prompt, the same text on every call", async () => {
    const model = readingModel(3);
    const rules = definePlugin({
      meta: { name: 'rules', version: '1.0.0' },
      on: { 'llm:before': () => ({ context: 'Keep the tests green.' }) },
    });
    const hookwise = hookwiseMiddleware({ plugins: [rules()], logger: silentLogger });
    await generateText({
      model: wrapLanguageModel({ model, middleware: hookwise }),
      system: 'You are a coding agent.',
      tools: { read: readTool },
      prompt: 'Read.',
      stopWhen: stepCountIs(10),
    });
    expect(model.doGenerateCalls).toHaveLength(4);
    for (const options of model.doGenerateCalls)
      expect(systemTexts(options.prompt)).toEqual(['You are a coding agent.', 'Keep the tests green.']);
  });

  it("keeps hook-precompact's preserved block in every call after a compaction the app performs", async () => {
    // The AgileFlow command of the repository's fixtures (fixtures/agileflow-commands, with its LICENSE).
    const dir = project({
      '.claude/commands/babysit.md': readFileSync(
        path.join(import.meta.dirname, '..', '..', '..', 'fixtures', 'agileflow-commands', 'babysit.md'),
        'utf8',
      ),
    });
    const { precompact } = await import('@hookwise/hook-precompact');
    const hookwise = hookwiseMiddleware({ sessionId: 'chat-compact', projectDir: dir, plugins: [precompact()], logger: silentLogger });
    const model = new MockLanguageModelV3({
      modelId: 'mock-model',
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: usage(500),
        warnings: [],
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: hookwise });
    await generateText({ model: wrapped, prompt: '/babysit the payments module' });

    let instructions: string | undefined;
    await hookwise.compact(async (input) => {
      instructions = input.instructions;
      return { summary: 'We worked on payments.', tokensAfter: 200 };
    });
    expect(instructions).toContain('DECISION TREE');

    await generateText({
      model: wrapped,
      messages: [
        { role: 'user', content: 'Summary: we worked on payments.' },
        { role: 'user', content: 'Go on.' },
      ],
    });
    await generateText({
      model: wrapped,
      messages: [
        { role: 'user', content: 'Summary: we worked on payments.' },
        { role: 'user', content: 'Go on.' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'And now?' },
      ],
    });
    const after = model.doGenerateCalls.slice(1).map((options) => systemTexts(options.prompt).join('\n'));
    expect(after[0]).toContain('DECISION TREE');
    expect(after[1]).toBe(after[0]);
  });
});

describe('usage and notices', () => {
  it('gives hook-suggest the context of the last call, and its notice reaches onNotice and the event log', async () => {
    const { suggest } = await import('@hookwise/hook-suggest');
    const notices: HookwiseNotice[] = [];
    const eventLog = createMemoryEventLog();
    const model = new MockLanguageModelV3({
      modelId: 'mock-model',
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'done' });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: usage(170_000) });
            controller.close();
          },
        }),
      }),
    });
    const hookwise = hookwiseMiddleware({
      sessionId: 'chat-suggest',
      plugins: [suggest()],
      eventLog,
      contextWindow: 200_000,
      onNotice: (notice) => notices.push(notice),
      logger: silentLogger,
    });
    const result = streamText({ model: wrapLanguageModel({ model, middleware: hookwise }), prompt: 'Go.', onFinish: hookwise.onFinish });
    await result.consumeStream();
    await result.text;
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(notices.length).toBeGreaterThan(0);
    expect(notices[0]!.point).toBe('agent:stop');
    expect(notices[0]!.about).toContain('capacity');
    const records = await eventLog.readAll();
    expect(records.some((record) => record.type === 'notice' && record['pluginName'] === notices[0]!.pluginName)).toBe(true);
  });
});

describe('conversations', () => {
  it('keeps per-conversation state apart when calls name their session in providerOptions', async () => {
    const seen: Array<{ sessionId: string; prompt: string }> = [];
    const spy = definePlugin({
      meta: { name: 'spy', version: '1.0.0' },
      on: { 'prompt:submit': (payload) => void seen.push({ sessionId: payload.sessionId, prompt: payload.prompt }) },
    });
    const hookwise = hookwiseMiddleware({ plugins: [spy()], logger: silentLogger });
    const model = wrapLanguageModel({ model: readingModel(0), middleware: hookwise });
    await generateText({ model, prompt: 'first', providerOptions: hookwise.session('a').providerOptions });
    await generateText({ model, prompt: 'second', providerOptions: hookwise.session('b').providerOptions });
    expect(seen).toEqual([
      { sessionId: 'a', prompt: 'first' },
      { sessionId: 'b', prompt: 'second' },
    ]);
  });
});

describe('tools', () => {
  it("lets tool:before block a call (the model gets the reason as the tool's error) and tool:after see each output", async () => {
    const outputs: unknown[] = [];
    const guard = definePlugin({
      meta: { name: 'guard', version: '1.0.0' },
      on: {
        'tool:before': (payload) =>
          (payload.input as { path?: string }).path === 'file-2.ts' ? { block: { reason: 'file-2 is off limits' } } : undefined,
        'tool:after': (payload) => void outputs.push(payload.ok),
      },
    });
    const hookwise = hookwiseMiddleware({ plugins: [guard()], logger: silentLogger });
    const model = readingModel(3);
    await generateText({
      model: wrapLanguageModel({ model, middleware: hookwise }),
      tools: hookwise.tools({ read: readTool }),
      prompt: 'Read.',
      stopWhen: stepCountIs(10),
    });
    const sent = toolOutputs(model.doGenerateCalls.at(-1)!.prompt);
    expect(sent.get('call-2')).toContain('file-2 is off limits');
    // The blocked call never ran: tool:after saw the two that did.
    expect(outputs).toEqual([true, true]);
  });
});

describe('failures: the call goes on unchanged', () => {
  const original = (model: MockLanguageModelV3) => model.doGenerateCalls[0]!.prompt;

  it('reports a config that does not load to onError and the event log', async () => {
    const dir = project({ 'hookwise.config.mjs': 'export default { plugins: "not a list" };\n' });
    const errors: HookwiseErrorReport[] = [];
    const hookwise = hookwiseMiddleware({ projectDir: dir, onError: (error) => errors.push(error), logger: silentLogger });
    const model = readingModel(0);
    const result = await generateText({ model: wrapLanguageModel({ model, middleware: hookwise }), system: 'sys', prompt: 'hello' });
    expect(result.text).toBe('done');
    expect(original(model)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.kind).toBe('config');
    expect(errors[0]!.message).toContain('hookwise.config.mjs');
    const log = readFileSync(path.join(dir, '.hookwise', 'logs', 'events.jsonl'), 'utf8');
    expect(log).toContain('"kind":"config"');
  });

  it('reports a plugin whose options are invalid as a config error', async () => {
    const errors: HookwiseErrorReport[] = [];
    const hookwise = hookwiseMiddleware({
      plugins: [prune({ keepRecent: -3 } as never)],
      onError: (error) => errors.push(error),
      logger: silentLogger,
    });
    const model = readingModel(0);
    await generateText({ model: wrapLanguageModel({ model, middleware: hookwise }), prompt: 'hello' });
    expect(original(model)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(errors.map((error) => error.kind)).toEqual(['config']);
  });

  const failing = (body: () => Promise<unknown>): PluginInstance<any> =>
    definePlugin({ meta: { name: 'broken', version: '1.0.0' }, on: { 'llm:before': body as never } })();

  it('reports a throwing plugin to onError and the event log', async () => {
    const errors: HookwiseErrorReport[] = [];
    const eventLog = createMemoryEventLog();
    const hookwise = hookwiseMiddleware({
      plugins: [
        failing(async () => {
          throw new Error('plugin bug');
        }),
      ],
      eventLog,
      onError: (error) => errors.push(error),
      logger: silentLogger,
    });
    const model = readingModel(0);
    await generateText({ model: wrapLanguageModel({ model, middleware: hookwise }), prompt: 'hello' });
    expect(original(model)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(errors).toMatchObject([
      { kind: 'error', point: 'llm:before', pluginName: 'broken', message: expect.stringContaining('plugin bug') },
    ]);
    expect((await eventLog.readAll()).filter((record) => record.type === 'hook:error')).toHaveLength(1);
  });

  it('reports a hook past its deadline to onError and the event log, and does not wait for it', async () => {
    const errors: HookwiseErrorReport[] = [];
    const eventLog = createMemoryEventLog();
    const hookwise = hookwiseMiddleware({
      plugins: [failing(() => new Promise((resolve) => setTimeout(resolve, 5_000)))],
      hookTimeoutMs: 50,
      eventLog,
      onError: (error) => errors.push(error),
      logger: silentLogger,
    });
    const model = readingModel(0);
    await generateText({ model: wrapLanguageModel({ model, middleware: hookwise }), prompt: 'hello' });
    expect(original(model)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(errors).toMatchObject([{ kind: 'timeout', point: 'llm:before', pluginName: 'broken' }]);
    expect((await eventLog.readAll()).some((record) => record.type === 'hook:error' && record['kind'] === 'timeout')).toBe(true);
  });

  it('passes an unknown prompt part through untouched', async () => {
    const hookwise = hookwiseMiddleware({ plugins: [aggressivePrune()], logger: silentLogger });
    const prompt = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'something-new', payload: 1 },
        ],
      },
    ] as never;
    const params = await hookwise.transformParams({ type: 'generate', params: { prompt }, model: { modelId: 'm' } });
    expect(params.prompt).toBe(prompt);
  });
});
