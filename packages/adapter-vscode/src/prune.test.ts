import { createEngine, createHost, createMemoryEventLog, createMemoryStateStore, silentLogger, type Engine } from '@hookwise/core/host';
import { isPrunedOutput, prune } from '@hookwise/hook-prune';
import { describe, expect, it } from 'vitest';
import { createRecordingApi, RooLikeTask } from './__fixtures__/roo-like-task.js';
import type { AnthropicMessageLike } from './task-binding.js';
import { createTaskBinding } from './task-binding.js';

/** The host kit over `engine`, as the binding takes it. */
const hostOf = (engine: Engine) =>
  createHost({ host: 'vscode', projectDir: '/virtual/project', config: {}, logger: silentLogger, createEngine: () => engine });

interface Block {
  type: string;
  id?: string;
  tool_use_id?: string;
  content?: unknown;
}

const TURNS = 60;
/** 8,000 characters of code a result: sixty of them are many times what hook-prune keeps verbatim. */
const fileText = (turn: number) => `// src/module-${turn}.ts\n${`export const value${turn} = ${turn};\n`.repeat(320)}`.slice(0, 8_000);

/**
 * A long Roo-style history: the user's task, read_file calls whose results are text-block arrays
 * as Roo stores them, and the user's feedback every ten turns.
 */
function longHistory(): AnthropicMessageLike[] {
  const history: AnthropicMessageLike[] = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nRefactor every module to named exports.\n</task>' }] },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    if (turn > 0 && turn % 10 === 0) {
      history.push({ role: 'assistant', content: `Modules ${turn - 10}–${turn - 1} are done.` });
      history.push({ role: 'user', content: [{ type: 'text', text: `<feedback>\nGood, go on with the next ten.\n</feedback>` }] });
    }
    history.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading module ${turn}.` },
        { type: 'tool_use', id: `toolu_${turn}`, name: 'read_file', input: { path: `src/module-${turn}.ts` } },
      ],
    });
    history.push({
      role: 'user',
      content: [
        // Roo sends results as blocks; every fifth one as a plain string, which the API also takes.
        {
          type: 'tool_result',
          tool_use_id: `toolu_${turn}`,
          content: turn % 5 === 0 ? fileText(turn) : [{ type: 'text', text: fileText(turn) }],
        },
        { type: 'text', text: `<environment_details>turn ${turn}</environment_details>` },
      ],
    });
  }
  return history;
}

const resultText = (block: Block): string =>
  typeof block.content === 'string'
    ? block.content
    : ((block.content as Array<{ text?: string }>) ?? []).map((part) => part.text ?? '').join('');

function toolResults(messages: readonly AnthropicMessageLike[]): Block[] {
  return messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : (message.content as Block[]).filter((block) => block.type === 'tool_result'),
  );
}

describe('messages are pruned through llm:before when hook-prune is configured', () => {
  it('clears old tool outputs of a long Anthropic-format history, keeps pairing and the task history', async () => {
    const eventLog = createMemoryEventLog();
    const engine = createEngine({
      config: { plugins: [prune()] },
      projectDir: '/virtual/project',
      host: 'vscode',
      stateStore: createMemoryStateStore(),
      eventLog,
      logger: silentLogger,
    });
    const api = createRecordingApi();
    const task = new RooLikeTask('task-prune', api, createTaskBinding({ host: hostOf(engine) }));
    task.apiConversationHistory = longHistory();
    const before = structuredClone(task.apiConversationHistory);

    await task.request();

    const sent = api.requests[0]!.messages;
    expect(sent).not.toBe(task.apiConversationHistory);
    expect(sent).toHaveLength(before.length);
    expect(sent.map((message) => message.role)).toEqual(before.map((message) => message.role));
    // String content stays a string.
    expect(sent.filter((message) => typeof message.content === 'string')).toEqual(
      before.filter((message) => typeof message.content === 'string'),
    );
    // The task's stored history is never changed.
    expect(task.apiConversationHistory).toEqual(before);

    const results = toolResults(sent);
    expect(results).toHaveLength(TURNS);
    const pruned = results.filter((block) => isPrunedOutput(resultText(block)));
    const intact = results.filter((block) => !isPrunedOutput(resultText(block)));
    expect(pruned.length).toBeGreaterThan(0);
    expect(intact.length).toBeGreaterThan(0);
    // Oldest first: every pruned result comes before every intact one, and the newest is intact.
    const order = results.map((block) => (isPrunedOutput(resultText(block)) ? 'P' : 'K')).join('');
    expect(order).toMatch(/^P+K+$/);
    expect(resultText(results.at(-1)!)).toBe(fileText(TURNS - 1));

    // Every tool_use still has its tool_result, by id, in the next message.
    for (let index = 0; index < sent.length; index++) {
      const message = sent[index]!;
      if (typeof message.content === 'string') continue;
      for (const block of message.content as Block[]) {
        if (block.type !== 'tool_use') continue;
        const next = sent[index + 1]!.content as Block[];
        expect(next.some((candidate) => candidate.type === 'tool_result' && candidate.tool_use_id === block.id)).toBe(true);
      }
    }
    // The text beside each result (Roo's environment details) is kept.
    expect(JSON.stringify(sent)).toContain('<environment_details>turn 0</environment_details>');

    const applied = (await eventLog.readAll()).filter((record) => record.type === 'prune:applied');
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ sessionId: 'task-prune', prunedCount: pruned.length });
  });

  it('leaves a short history alone (identity, no conversion back)', async () => {
    const engine = createEngine({
      config: { plugins: [prune()] },
      projectDir: '/virtual/project',
      host: 'vscode',
      stateStore: createMemoryStateStore(),
      eventLog: createMemoryEventLog(),
      logger: silentLogger,
    });
    const binding = createTaskBinding({ host: hostOf(engine) });
    const history = longHistory().slice(0, 5);
    const result = await binding.beforeModelRequest({ taskId: 'short', systemPrompt: 'P', messages: history, model: 'claude-sonnet-4-5' });
    expect(result.messages).toBe(history);
    expect(result.changed).toEqual({ systemPrompt: false, messages: false });
  });
});
