import { expect } from 'vitest';
import { contentText, planStep, type ChatRequestBody, type Reply } from './stand-in-chat-model.mjs';

/**
 * Scenario pieces the end-to-end suites of the hosts that talk to the chat-completions stand-in
 * share: files to read, scripted answers, the pairing every request must keep, and a plugin
 * that fails at every point.
 */

/** `lines` lines of 80 characters, each starting with `<tag>-line-<n>`. */
export function bigFile(tag: string, lines = 200): string {
  return (
    Array.from({ length: lines }, (_, index) => `${tag}-line-${String(index + 1).padStart(3, '0')} ${'x'.repeat(64)}`).join('\n') + '\n'
  );
}

export function lastUserText(body: ChatRequestBody): string {
  const users = body.messages.filter((message) => message.role === 'user');
  return contentText(users[users.length - 1]);
}

/**
 * A responder that follows a script: per prompt keyword, the tool calls to make one step at a
 * time, then a text. `extra` answers first when it has an answer (a compaction, a step that
 * reports a large context).
 */
export function scripted(
  steps: Record<string, Array<Reply['toolCalls']>>,
  extra: (body: ChatRequestBody, kind: string, step: number) => Reply | undefined = () => undefined,
) {
  return (body: ChatRequestBody, kind: string): Reply | undefined => {
    const { step, call } = planStep(steps, body);
    const special = extra(body, kind, step);
    if (special) return special;
    if (kind !== 'turn') return undefined;
    return call ? { toolCalls: call } : { text: `Finished step ${step}.` };
  };
}

/** Every tool call of the request has exactly one result. */
export function expectPairing(body: ChatRequestBody): void {
  const calls = body.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
  const results = body.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id);
  expect(calls.length).toBeGreaterThan(0);
  expect([...results].sort()).toEqual([...calls].sort());
}

/**
 * A project's config with hook-prune and a plugin, written as one object, that throws at every
 * point but `tool:after`, where it never settles: the engine gives up at the config's deadline.
 */
export const BROKEN_PLUGIN_PROJECT = {
  configName: 'hookwise.config.mjs',
  hookwiseConfig: [
    "import { defineConfig } from '@hookwise/core';",
    "import prune from '@hookwise/hook-prune';",
    "import broken from './broken-plugin.mjs';",
    'export default defineConfig({ hookTimeoutMs: 1_000, plugins: [prune(), broken()] });',
    '',
  ].join('\n'),
  files: {
    'broken-plugin.mjs': [
      "import { definePlugin } from '@hookwise/core';",
      'const fail = (point) => () => { throw new Error(`broken on purpose at ${point}`); };',
      'export default definePlugin({',
      "  meta: { name: 'broken', version: '1.0.0' },",
      '  on: {',
      "    'session:start': fail('session:start'),",
      "    'prompt:submit': fail('prompt:submit'),",
      "    'llm:before': fail('llm:before'),",
      "    'tool:before': fail('tool:before'),",
      "    'tool:after': () => new Promise(() => {}),",
      "    'agent:stop': fail('agent:stop'),",
      '  },',
      '});',
      '',
    ].join('\n'),
  },
};
