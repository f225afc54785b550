import {
  createCharsTokenCounter,
  createEngine,
  createMemoryEventLog,
  createMemoryLogger,
  createMemoryStateStore,
} from '@hookwise/core/host';
import type { Message } from '@hookwise/core/messages';
import { describe, expect, it } from 'vitest';
import { eligibleHistory, prompt, tokens, toolTurn } from './__fixtures__/history.js';
import { SHORT_EDIT_MAX_CHARS } from './file-context.js';
import defaultExport, { isPrunedOutput, prune, pruneToolOutputs } from './index.js';

/** The mechanics are tested under OpenCode's rule and chars/4, where `tokens(n)` is n tokens; the default policies have their own tests. */
const OPENCODE_RULE = { policy: 'window', protectTurns: 2, keepRecent: 0, supersede: false } as const;

function setup(options?: Parameters<typeof prune>[0], engineOptions: { opencode?: boolean } = {}) {
  const eventLog = createMemoryEventLog();
  const stateStore = createMemoryStateStore();
  const pluginOptions = engineOptions.opencode === false ? options : { ...OPENCODE_RULE, ...options };
  const engine = createEngine({
    config: { plugins: [prune(pluginOptions)] },
    projectDir: '/tmp/hookwise-prune-test',
    host: 'test',
    eventLog,
    stateStore,
    logger: createMemoryLogger(),
    tokenCounter: createCharsTokenCounter(4),
  });
  const request = (messages: Message[], extra: Record<string, unknown> = {}) =>
    engine.emit('llm:before', { sessionId: 's1', systemPrompt: 'be brief', messages, ...extra });
  return { engine, eventLog, request };
}

describe('prune() plugin on llm:before', () => {
  it('is the default export too', () => {
    expect(defaultExport).toBe(prune);
    expect(prune().meta.name).toBe('@hookwise/hook-prune');
  });

  it('replaces the request messages, leaves the stored history alone (b24) and logs prune:applied', async () => {
    const { request, eventLog } = setup();
    const history = eligibleHistory([40_000, 25_000]);
    const snapshot = structuredClone(history);
    const outcome = await request(history);
    expect(outcome.errors).toEqual([]);
    expect(outcome.value).toBeDefined();
    expect(outcome.value!.length).toBe(history.length);
    expect(history).toEqual(snapshot);
    const records = await eventLog.readAll();
    expect(records).toMatchObject([{ type: 'prune:applied', tokensReclaimed: 25_000 - 9, prunedCount: 1, scannedCount: 2 }]);
  });

  it('two sessions interleaved on one engine each get the answer pruneToolOutputs gives for their own history', async () => {
    const { engine } = setup();
    const histories = { a: eligibleHistory([40_000, 25_000]), b: eligibleHistory([10_000, 10_000]) };
    const grown = (history: Message[], turn: number) => [
      ...history,
      ...toolTurn(tokens(30_000 + turn)),
      prompt(`u${turn}`),
      prompt(`v${turn}`),
    ];
    let changed = 0;
    for (let turn = 0; turn < 4; turn++) {
      for (const session of ['a', 'b'] as const) {
        const messages = (histories[session] = grown(histories[session], turn));
        const outcome = await engine.emit('llm:before', { sessionId: session, systemPrompt: '', messages });
        // Each history grows by one batch a turn: the earlier prunes the plugin re-applies are ones the plain function makes anyway.
        const expected = pruneToolOutputs(structuredClone(messages), {
          ...OPENCODE_RULE,
          protectTokens: 40_000,
          minimumTokens: 20_000,
          tokenCounter: createCharsTokenCounter(4),
        });
        expect(JSON.stringify(outcome.value ?? messages), `${session}, turn ${turn}`).toBe(JSON.stringify(expected.messages));
        if (outcome.value !== undefined) changed++;
      }
    }
    expect(changed).toBeGreaterThan(2);
  });

  it('returns no value when nothing changes, and logs nothing', async () => {
    const { request, eventLog } = setup();
    const outcome = await request(eligibleHistory([10_000, 10_000]));
    expect(outcome.value).toBeUndefined();
    expect(await eventLog.readAll()).toEqual([]);
  });

  it('follows the request context window: a 16k local model prunes what a 200k one keeps', async () => {
    const { request } = setup();
    const history = eligibleHistory([3_000, 2_000, 2_000]);
    expect((await request(history)).value).toBeUndefined();
    expect((await request(history, { contextWindow: 16_000 })).value).toBeDefined();
  });

  it('b23: sticky prunes keep the prefix stable as the history grows, with one log record per new batch', async () => {
    const { request, eventLog } = setup();
    const history = eligibleHistory([10_000, 10_000, 10_000, 10_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000]);
    const first = await request(history);
    const grown = [...history.slice(0, -1), ...toolTurn(tokens(5_000)), prompt('u4'), prompt('u5')];
    const second = await request(grown);
    // The same results are cleared as on the previous request: the cached prefix survives.
    const cleared = (messages: Message[]) =>
      messages.flatMap((message) =>
        message.parts
          .filter((part) => part.type === 'tool-result' && part.output === '[Old tool result content cleared]')
          .map((part) => (part as { toolCallId: string }).toolCallId),
      );
    expect(cleared(second.value!)).toEqual(cleared(first.value!));
    expect((await eventLog.readAll()).map((record) => record.type)).toEqual(['prune:applied']);
  });

  it('with the window policy prunes a one-prompt agent loop past 40,000 tokens, keeping the newest 3 results', async () => {
    const { request, eventLog } = setup({ policy: 'window' }, { opencode: false });
    // One prompt, then 10 tool steps of 10,000 tokens each: OpenCode's rule would prune nothing.
    const history = [prompt('fix the bug'), ...Array.from({ length: 10 }, () => toolTurn(tokens(10_000))).flat()];
    const outcome = await request(history);
    const cleared = outcome.value!.map(
      (message) => message.parts[0]?.type === 'tool-result' && message.parts[0].output === '[Old tool result content cleared]',
    );
    // Newest first: 3 kept by recency, 4 more fill the 40,000 window, the 8th crosses: 30,000 > 20,000 go.
    expect(cleared.filter(Boolean).length).toBe(3);
    expect(cleared.slice(-14).some(Boolean)).toBe(false);
    expect(await eventLog.readAll()).toMatchObject([{ type: 'prune:applied', prunedCount: 3 }]);
  });

  it('near compaction (70 % of the window by default) prunes every eligible result, the minimum waived', async () => {
    // Newest first: 3 kept by recency, 40,000 in the window, then 10,000 that alone is under the 20,000 minimum.
    const history = [prompt('go'), ...[10_000, 40_000, 1, 1, 1].flatMap((size) => toolTurn(tokens(size)))];
    const relaxed = setup({ policy: 'window' }, { opencode: false });
    expect((await relaxed.request(history, { contextTokens: 130_000 })).value).toBeUndefined();
    const pressed = await relaxed.request(history, { contextTokens: 140_000 });
    expect(pressed.value![2]!.parts[0]).toMatchObject({ output: '[Old tool result content cleared]' });
    expect(
      (await setup({ policy: 'window', pressurePercent: 100 }, { opencode: false }).request(history, { contextTokens: 199_000 })).value,
    ).toBeUndefined();
  });

  describe('the cache-aware default', () => {
    const bash = (size: number) => toolTurn(tokens(size), { toolName: 'Bash', input: { command: `run ${size}` } });
    const cleared = (messages: Message[]) =>
      messages.map((message) => message.parts[0]?.type === 'tool-result' && isPrunedOutput(message.parts[0].output));

    it('clears right behind the newest result once the batch frees twice what the cache writes again', async () => {
      const { request, eventLog } = setup(undefined, { opencode: false });
      // 9 older results of 10,000 free 90,000; the kept newest (10,000) is what follows the first change.
      const history = [prompt('fix the bug'), ...Array.from({ length: 10 }, () => bash(10_000)).flat()];
      const outcome = await request(history);
      expect(cleared(outcome.value!).filter(Boolean).length).toBe(9);
      expect(cleared(outcome.value!).slice(-2).some(Boolean)).toBe(false);
      expect(await eventLog.readAll()).toMatchObject([{ type: 'prune:applied', prunedCount: 9 }]);
    });

    it('says in each cleared output what it was and how to get it back', async () => {
      const { request } = setup(undefined, { opencode: false });
      const history = [prompt('fix the bug'), ...Array.from({ length: 10 }, () => bash(10_000)).flat()];
      const outcome = await request(history);
      expect((outcome.value![2]!.parts[0] as { output: unknown }).output).toBe('[Bash `run 10000` output cleared]');
    });

    it('waits while a batch would free less than twice what follows it', async () => {
      const { request } = setup(undefined, { opencode: false });
      // One old result of 10,000 behind the newest of 10,000: clearing it would make the cache write 10,000 again.
      const history = [prompt('fix the bug'), ...Array.from({ length: 2 }, () => bash(10_000)).flat()];
      expect((await request(history)).value).toBeUndefined();
    });

    it('under pressure from 140,000 tokens even in a 1M window, clears what a batch alone would not', async () => {
      // One old output behind the newest: no batch pays for breaking the cache there.
      const history = [prompt('fix the bug'), ...Array.from({ length: 2 }, () => bash(10_000)).flat()];
      const { request } = setup(undefined, { opencode: false });
      expect((await request(history, { contextTokens: 139_000, contextWindow: 1_000_000 })).value).toBeUndefined();
      expect(cleared((await request(history, { contextTokens: 141_000, contextWindow: 1_000_000 })).value!).filter(Boolean).length).toBe(1);
      const raised = setup({ pressureTokens: 500_000 }, { opencode: false });
      expect((await raised.request(history, { contextTokens: 141_000, contextWindow: 1_000_000 })).value).toBeUndefined();
    });

    it('asks pressure of the whole history and of what is sent: the host measures its request pruned', async () => {
      // The first request clears the two 60,000-token outputs (about 120,000 tokens off what is sent).
      const first = [prompt('fix the bug'), ...bash(60_000), ...bash(60_000), ...bash(1_000)];
      // Then two 5,000-token outputs behind the newest 10,000: they pay at ratio 1 (pressure) only.
      const second = [...first, ...bash(5_000), ...bash(5_000), ...bash(10_000)];
      const newlyCleared = (messages: Message[]) => cleared(messages).slice(first.length).filter(Boolean).length;

      // The host measured 100,000 sent: with what the first prune took off, the history is past 140,000.
      const measured = setup(undefined, { opencode: false });
      expect(cleared((await measured.request(first, { contextTokens: 40_000 })).value!).filter(Boolean).length).toBe(2);
      expect(newlyCleared((await measured.request(second, { contextTokens: 100_000 })).value!)).toBe(2);

      // No measure: the history's estimate (about 141,000) is past 140,000, but what is sent (about 21,000) is not near it.
      const estimated = setup(undefined, { opencode: false });
      expect(cleared((await estimated.request(first, { contextTokens: 40_000 })).value!).filter(Boolean).length).toBe(2);
      expect(newlyCleared((await estimated.request(second)).value!)).toBe(0);
    });

    it('under pressure, still clears only what frees at least what the cache writes again after it (ratio 1)', async () => {
      const { request } = setup(undefined, { opencode: false });
      // 5,000 behind the newest 10,000: clearing it would make the cache write twice what it frees.
      const small = [prompt('fix the bug'), ...bash(5_000), ...bash(10_000)];
      expect((await request(small, { contextTokens: 150_000, contextWindow: 200_000 })).value).toBeUndefined();
      const pays = [prompt('fix the bug'), ...bash(5_000), ...bash(5_000), ...bash(10_000)];
      expect(cleared((await request(pays, { contextTokens: 150_000, contextWindow: 200_000 })).value!).filter(Boolean).length).toBe(2);
    });

    it('keeps the reads and edits of files in use: touched by the newest 10 results or edited since the compaction', async () => {
      const { request } = setup(undefined, { opencode: false });
      const read = (file: string) => toolTurn(tokens(10_000), { toolName: 'Read', input: { file_path: file } });
      const edit = (file: string) =>
        toolTurn('The file has been updated.', {
          toolName: 'Edit',
          input: { file_path: file, old_string: 'a'.repeat(40), new_string: tokens(5_000, 'b') },
        });
      const history = [
        prompt('refactor'),
        ...read('/repo/edited.ts'),
        ...edit('/repo/edited.ts'),
        ...read('/repo/looked-at.ts'),
        ...Array.from({ length: 11 }, () => bash(10_000)).flat(),
      ];
      const outcome = await request(history);
      const output = (index: number) => (outcome.value![index]!.parts[0] as { output: unknown }).output;
      // The edited file's read and edit stay (its edit's text too); the file only looked at long ago goes.
      expect(outcome.value![2]!.parts[0]).toEqual(history[2]!.parts[0]);
      expect(outcome.value![3]!.parts[1]).toEqual(history[3]!.parts[1]);
      expect(output(6)).toBe('[Read of /repo/looked-at.ts cleared; read it again to edit it]');
      expect(cleared(outcome.value!).filter(Boolean).length).toBe(11);
    });

    it('under pressure far from the window keeps the short edits; near the window they go with the edited files', async () => {
      const edit = (file: string, newText: string) =>
        toolTurn('The file has been updated.', {
          toolName: 'Edit',
          input: { file_path: file, old_string: 'a'.repeat(40), new_string: newText },
        });
      const history = [
        prompt('refactor'),
        ...edit('/repo/short.ts', 'b'.repeat(2_000)),
        ...edit('/repo/long.ts', 'c'.repeat(SHORT_EDIT_MAX_CHARS)),
        ...Array.from({ length: 11 }, () => bash(10_000)).flat(),
      ];
      const kept = (messages: Message[]) => ({
        short: JSON.stringify(messages.slice(1, 3)) === JSON.stringify(history.slice(1, 3)),
        long: JSON.stringify(messages.slice(3, 5)) === JSON.stringify(history.slice(3, 5)),
      });
      // A 1M-token window at 150,000 tokens: under pressure (from 140,000), far from 70 % of the window.
      const far = await setup(undefined, { opencode: false }).request(history, { contextTokens: 150_000, contextWindow: 1_000_000 });
      expect(kept(far.value!)).toEqual({ short: true, long: false });
      // A 200,000-token window at 150,000: near it, the edited files and their short edits go.
      const near = await setup(undefined, { opencode: false }).request(history, { contextTokens: 150_000, contextWindow: 200_000 });
      expect(kept(near.value!)).toEqual({ short: false, long: false });
    });
  });

  it('rejects bad options when the engine is built, naming the plugin', () => {
    expect(() => setup({ protectTokens: -5 })).toThrow(/@hookwise\/hook-prune/);
  });

  it('honours plugin options (placeholder, protected tools, sticky off)', async () => {
    const { request } = setup({ placeholder: '[cleared]', protectedTools: [], sticky: false });
    const history = eligibleHistory([40_000]);
    history.splice(1, 0, ...toolTurn(tokens(25_000), { toolName: 'skill' }));
    const outcome = await request(history);
    expect(outcome.value![2]!.parts[0]).toMatchObject({ output: '[cleared]' });
  });
});
