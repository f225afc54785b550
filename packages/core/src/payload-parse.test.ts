import type * as z from 'zod/mini';
import { describe, expect, it, vi } from 'vitest';
import { withZodCalls, type ZodMocking } from '../../../test-support/zod-calls.js';
import { pointSchema } from './point-schemas.js';
import { payloadParserOf, points, type PointName } from './points.js';

const message = { role: 'user', parts: [{ type: 'text', text: 'hi' }] };

const zodMocking: ZodMocking = { mock: (factory) => vi.doMock('zod/mini', factory), unmock: () => vi.doUnmock('zod/mini') };

/** A payload of each point with every declared field set (and one extra field). */
const full: Record<PointName, Record<string, unknown>> = {
  'session:start': { source: 'startup' },
  'prompt:submit': { prompt: '/x a', command: { name: 'x', args: 'a' } },
  'tool:before': { toolName: 'Read', input: { file_path: '/a' }, toolUseId: 't1' },
  'tool:after': { toolName: 'Read', input: { file_path: '/a' }, output: 'text', ok: true, error: 'e', durationMs: 3, toolUseId: 't1' },
  'llm:before': { systemPrompt: '', messages: [message, { ...message, role: 'assistant' }], intentId: 'i', taskId: 't' },
  'compact:before': { trigger: 'auto', instructions: 'keep' },
  'compact:after': { trigger: 'manual', tokensBefore: 10, tokensAfter: 0, summary: 's', preserved: ['a', 'b'] },
  'phase:end': { output: 'done', taskId: 't', phase: 'p', agentType: 'a', request: 'r', agentTranscriptPath: '/t' },
  'agent:stop': { lastMessage: 'bye', stopHookActive: false },
  'session:end': { reason: 'other' },
};
const common = {
  sessionId: 's-1',
  projectDir: '/p',
  host: 'test',
  cwd: '/p',
  transcriptPath: '/t.jsonl',
  model: 'm',
  contextTokens: 0,
  contextWindow: 200_000,
};

const odd = [
  undefined,
  null,
  '',
  'text',
  0,
  -0,
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  {},
  [],
  ['a'],
  [message],
  [undefined],
  [1],
  { name: 'x' },
  { name: 'x', args: 'y', extra: 1 },
  'startup',
  'auto',
  'bogus',
];

/** The full payload, then each field left out, set to each odd value, and extra keys added. */
function variants(point: PointName): Array<Record<string, unknown>> {
  const base: Record<string, unknown> = { ...common, ...full[point], extra: { kept: true } };
  const out: Array<Record<string, unknown>> = [base, { ...base, undefinedExtra: undefined }, { ...common, ...full[point] }];
  for (const key of Object.keys(base)) {
    const { [key]: _left, ...without } = base;
    out.push(without);
    for (const value of odd) out.push({ ...base, [key]: value });
  }
  out.push({ ...base, messages: Object.assign(new Array(2), { 0: message }) }); // a hole
  return out;
}

/** Same values and the same key order, all the way down. */
function sameShape(actual: unknown, expected: unknown): void {
  expect(actual).toStrictEqual(expected);
  if (typeof expected === 'object' && expected !== null) {
    expect(Object.keys(actual as object)).toEqual(Object.keys(expected));
    for (const key of Object.keys(expected))
      sameShape((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key]);
  }
}

describe('the plain-code payload parse', () => {
  it.each(Object.keys(points) as PointName[])(
    'gives zod’s result for every %s payload it accepts, and accepts no payload zod refuses',
    (point) => {
      const schema = pointSchema(point) as unknown as z.ZodMiniType;
      const fast = payloadParserOf(point);
      let accepted = 0;
      for (const payload of variants(point)) {
        const expected = schema.safeParse(payload);
        const data = fast(payload);
        if (data === undefined) continue;
        accepted++;
        expect(expected.success, `zod refuses ${JSON.stringify(payload)}`).toBe(true);
        sameShape(data, (expected as { data: unknown }).data);
        // A copy, as zod's: hooks replacing fields must not touch the host's object.
        expect(data).not.toBe(payload);
      }
      expect(accepted).toBeGreaterThan(3);
    },
  );

  it.each(Object.keys(points) as PointName[])(
    'with defaults, gives zod’s result for `{ ...defaults, ...payload }` for every %s payload it accepts (the engine’s projectDir and host)',
    (point) => {
      const schema = pointSchema(point) as unknown as z.ZodMiniType;
      const fast = payloadParserOf(point);
      const defaults = Object.freeze({ projectDir: '/engine', host: 'engine-host' });
      let accepted = 0;
      let defaulted = 0;
      for (const payload of variants(point)) {
        const expected = schema.safeParse({ ...defaults, ...payload });
        const data = fast(payload, defaults);
        if (data === undefined) continue;
        accepted++;
        if (!('projectDir' in payload) || !('host' in payload)) defaulted++;
        expect(expected.success, `zod refuses ${JSON.stringify(payload)}`).toBe(true);
        sameShape(data, (expected as { data: unknown }).data);
        expect(data).not.toBe(payload);
      }
      expect(defaulted).toBe(2);
      expect(accepted).toBeGreaterThan(3);
    },
  );

  it('builds no zod schema (a hook call emitting good payloads needs none); a point’s schema is built when read, once', () =>
    withZodCalls(zodMocking, async (calls) => {
      const fresh = { ...(await import('./points.js')), ...(await import('./point-schemas.js')) };
      for (const point of Object.keys(fresh.points) as PointName[])
        expect(fresh.payloadParserOf(point)({ ...common, ...full[point] })).toBeDefined();
      expect(calls).toEqual([]);
      const schema = fresh.pointSchema('tool:after');
      expect(calls).toContain('looseObject');
      const made = calls.length;
      expect(fresh.pointSchema('tool:after')).toBe(schema);
      expect(calls).toHaveLength(made);
    }));

  it('copies arrays and nested objects as zod does (new array, unknown keys of a strict shape dropped)', () => {
    const payload = { ...common, ...full['prompt:submit'], command: { name: 'x', args: '', extra: 1 } };
    const data = payloadParserOf('prompt:submit')(payload)!;
    expect(data['command']).toEqual({ name: 'x', args: '' });
    const request: Record<string, unknown> = { ...common, ...full['llm:before'] };
    const parsed = payloadParserOf('llm:before')(request)!;
    expect(parsed['messages']).not.toBe(request['messages']);
    expect(parsed['messages']).toEqual(request['messages']);
  });

  describe('a request history sent again (messages are immutable: copy on write)', () => {
    const parse = payloadParserOf('llm:before');
    const history = (messages: unknown[]) => ({ ...common, systemPrompt: '', messages });
    const fresh = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

    it('checks every new object, at any position: a bad message added or swapped in is refused with zod’s error', () => {
      const first = [fresh('a'), fresh('b')];
      expect(parse(history(first))).toBeDefined();
      // The same messages and one more that is not a message.
      const bad = { role: 'user', parts: 'not an array' };
      const grown = [...first, bad];
      expect(parse(history(grown))).toBeUndefined();
      const refused = (pointSchema('llm:before') as unknown as z.ZodMiniType).safeParse(history(grown));
      expect(refused.success).toBe(false);
      // A changed message is a new object (copy on write): checked again.
      expect(parse(history([first[0], { ...first[1]!, parts: undefined }]))).toBeUndefined();
      // Holes and undefined still go to zod, wherever they are.
      expect(parse(history([first[0], undefined]))).toBeUndefined();
      expect(parse(history(Object.assign(new Array(2), { 0: first[0] })))).toBeUndefined();
      // A shorter history after a longer one (a compaction): what is left is still checked.
      expect(parse(history([bad]))).toBeUndefined();
      expect(parse(history([first[0]]))).toBeDefined();
    });

    it('does not check again a message object already checked at its position; one changed in place after its check is passed as it is', () => {
      const messages = [fresh('a'), fresh('b')];
      const parsed = parse(history(messages))!;
      expect(parsed['messages']).toEqual(messages);
      // Against the rule: a host changing a checked message in place. Not seen (that is what the
      // rule buys); the hooks get the message as it now is, and the copy of the array still
      // keeps the host's array out of their reach.
      (messages[1] as { parts: unknown }).parts = 'changed in place';
      const again = parse(history(messages))!;
      expect((again['messages'] as unknown[])[1]).toBe(messages[1]);
      expect(again['messages']).not.toBe(messages);
      // The same object at another position is checked there.
      expect(parse(history([messages[1]]))).toBeUndefined();
    });
  });
});
