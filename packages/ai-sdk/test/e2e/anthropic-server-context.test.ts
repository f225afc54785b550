import { createAnthropic } from '@ai-sdk/anthropic';
import { silentLogger } from '@hookwise/core/host';
import { isPrunedOutput, prune } from '@hookwise/hook-prune';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookwiseMiddleware } from '../../src/index.js';
import type { PromptMessage } from '../../src/prompt.js';
import { expectedToolOutputs } from '../support/expected-prunes.js';
import { fileText, MODEL_ID, PRUNE_OPTIONS, RULE, SYSTEM } from './scenario.mjs';
import { startStandInModel, systemTexts, toolResults, type StandInModel } from './stand-in-model.mjs';

/**
 * How hookwise combines with what `@ai-sdk/anthropic` asks Anthropic to do on its side (real ai 6
 * and @ai-sdk/anthropic 3 against the stand-in): `contextManagement` clearing of tool results, and
 * server-side compaction (`compact_20260112`), whose summary comes back as a `compaction` block.
 */

let standIn: StandInModel;
beforeAll(async () => {
  // The stand-in's model id is unknown to the provider; its warnings about it are noise here.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  standIn = await startStandInModel();
});
afterAll(async () => {
  await standIn?.close();
});

const readTool = tool({
  description: 'Read a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path }) => fileText(path),
});

function app(recorded: PromptMessage[][] = []) {
  const recorder: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => (recorded.push(structuredClone(params.prompt) as PromptMessage[]), params),
  };
  const hookwise = hookwiseMiddleware({
    config: { plugins: [prune(PRUNE_OPTIONS)], on: { 'llm:before': () => ({ context: RULE }) } },
    logger: silentLogger,
  });
  const model = wrapLanguageModel({
    model: createAnthropic({ baseURL: standIn.url, apiKey: 'stand-in' })(MODEL_ID),
    middleware: [recorder, hookwise],
  });
  return { model, recorded };
}

describe("with Anthropic's server-side context management", () => {
  it('leaves tool results to Anthropic when the call turns on clear_tool_uses, and keeps its own system text', async () => {
    standIn.reset();
    const edits = [
      {
        type: 'clear_tool_uses_20250919' as const,
        trigger: { type: 'input_tokens' as const, value: 2_000 },
        keep: { type: 'tool_uses' as const, value: 1 },
      },
    ];
    const { model } = app();
    await generateText({
      model,
      system: SYSTEM,
      prompt: 'Read the files.',
      tools: { read: readTool },
      stopWhen: stepCountIs(10),
      providerOptions: { anthropic: { contextManagement: { edits } } },
    });

    expect(standIn.requests.length).toBe(5);
    for (const request of standIn.requests) {
      expect(request.body.context_management).toEqual({
        edits: [
          { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 2_000 }, keep: { type: 'tool_uses', value: 1 } },
        ],
      });
      expect(systemTexts('anthropic', request.body)).toEqual([SYSTEM, RULE]);
    }
    const sent = toolResults('anthropic', standIn.requests.at(-1)!.body);
    expect(sent).toHaveLength(4);
    for (const result of sent) expect(isPrunedOutput(result.text)).toBe(false);
  });

  it('prunes those same results when the call leaves clearing to hookwise', async () => {
    standIn.reset();
    const { model } = app();
    await generateText({ model, system: SYSTEM, prompt: 'Read the files.', tools: { read: readTool }, stopWhen: stepCountIs(10) });
    expect(standIn.requests.every((request) => request.body.context_management === undefined)).toBe(true);
    expect(toolResults('anthropic', standIn.requests.at(-1)!.body).filter((result) => isPrunedOutput(result.text)).length).toBeGreaterThan(
      0,
    );
  });

  it('sends a server compaction back as it came, and clears nothing before it', async () => {
    standIn.reset();
    const { model, recorded } = app();
    // What the app's history holds after Anthropic compacted: @ai-sdk/anthropic's text part for a `compaction` block.
    const history: ModelMessage[] = [
      { role: 'user', content: 'Start on the payments module.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_early', toolName: 'read', input: { path: 'src/early.ts' } }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'toolu_early', toolName: 'read', output: { type: 'text', value: fileText('src/early.ts') } },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Summary: the payments module was read.', providerOptions: { anthropic: { type: 'compaction' } } }],
      },
      { role: 'user', content: 'Go on with the next files.' },
    ];
    await generateText({ model, system: SYSTEM, messages: history, tools: { read: readTool }, stopWhen: stepCountIs(10) });

    expect(standIn.requests.length).toBeGreaterThan(3);
    const expected = await expectedToolOutputs(
      prune(PRUNE_OPTIONS),
      recorded.map((prompt, index) => ({
        prompt,
        model: MODEL_ID,
        ...(index > 0 ? { contextTokens: standIn.requests[index - 1]!.inputTokens } : {}),
      })),
    );
    standIn.requests.forEach((request, index) => {
      const blocks = request.body.messages.flatMap((message: { content: unknown }) =>
        Array.isArray(message.content) ? message.content : [],
      );
      expect(blocks.filter((block: { type: string }) => block.type === 'compaction')).toEqual([
        { type: 'compaction', content: 'Summary: the payments module was read.' },
      ]);
      const sent = new Map(toolResults('anthropic', request.body).map((result) => [result.id, result.text]));
      expect(sent.get('toolu_early')).toBe(fileText('src/early.ts'));
      expect(sent).toEqual(expected[index]);
    });
    const last = toolResults('anthropic', standIn.requests.at(-1)!.body);
    expect(last.filter((result) => isPrunedOutput(result.text)).length).toBeGreaterThan(0);
  });
});
