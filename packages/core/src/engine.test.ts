import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { inject, injectable } from './di.js';
import { createEngine, type EngineOptions } from './engine.js';
import { On, type HookMap } from './hooks.js';
import { createMemoryLogger } from './logger.js';
import type { HookwiseConfig } from './config.js';
import { definePlugin } from './plugin.js';
import { withZodCalls, type ZodMocking } from '../../../test-support/zod-calls.js';
import { createMemoryEventLog } from './state/event-log.js';
import { createMemoryStateStore } from './state/file-state-store.js';
import { PLUGIN_OPTIONS, SESSION_ID, SESSION_STATE, TOKEN_COUNTER } from './tokens.js';
import type { SessionState } from './state/types.js';
import type { TokenCounter } from './token-counter.js';
import * as z from 'zod/mini';

const zodMocking: ZodMocking = { mock: (factory) => vi.doMock('zod/mini', factory), unmock: () => vi.doUnmock('zod/mini') };

const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-engine-'));
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
const session = { sessionId: 'session-1' };

/** Plugin `slow` whose `tool:after` hook `sleepy` returns only when its signal aborts, calling `onAbort` then. */
const sleepyUntilAborted = (onAbort: () => void) =>
  definePlugin({
    meta: { name: 'slow', version: '1.0.0' },
    on: {
      'tool:after': {
        handler: (_payload, context) =>
          new Promise<void>((resolve) =>
            context.signal.addEventListener('abort', () => {
              onAbort();
              resolve();
            }),
          ),
        name: 'sleepy',
      },
    },
  });

function engineWith(config: HookwiseConfig, overrides: Partial<EngineOptions> = {}) {
  const eventLog = createMemoryEventLog();
  const logger = createMemoryLogger();
  const engine = createEngine({ config, projectDir, host: 'test', stateStore: createMemoryStateStore(), eventLog, logger, ...overrides });
  return { engine, eventLog, logger };
}

const toolAfter = { ...session, toolName: 'Bash', input: { command: 'ls' }, output: 'a\nb', ok: true };

describe('ordering', () => {
  it('runs pre hooks, then config order, then post hooks', async () => {
    const calls: string[] = [];
    const record = (name: string) => () => {
      calls.push(name);
    };
    const first = definePlugin({
      meta: { name: 'first', version: '1.0.0' },
      on: { 'tool:after': { handler: record('first'), name: 'a' } },
    });
    const late = definePlugin({
      meta: { name: 'late', version: '1.0.0' },
      on: { 'tool:after': { handler: record('late-post'), order: 'post', name: 'b' } },
    });
    const early = definePlugin({
      meta: { name: 'early', version: '1.0.0' },
      on: { 'tool:after': { handler: record('early-pre'), order: 'pre' } },
    });
    const second = definePlugin({
      meta: { name: 'second', version: '1.0.0' },
      on: { 'tool:after': record('second') },
    });
    const { engine } = engineWith({
      plugins: [first(), late(), early(), second()],
      on: { 'tool:after': { handler: record('user'), name: 'user' } },
    });
    await engine.emit('tool:after', toolAfter);
    expect(calls).toEqual(['early-pre', 'first', 'second', 'user', 'late-post']);
    expect(engine.hooksFor('tool:after').map((hook) => hook.pluginName)).toEqual(['early', 'first', 'second', 'config', 'late']);
  });
});

describe('merge rules', () => {
  const plugin = (name: string, on: HookMap) => definePlugin({ meta: { name, version: '1.0.0' }, on })();

  it('joins contexts in order with a blank line and notices with a newline, skipping empty ones', async () => {
    const { engine } = engineWith({
      plugins: [
        plugin('one', { 'session:start': () => ({ context: 'A', notice: 'n1' }) }),
        plugin('two', { 'session:start': () => ({ context: '  ', notice: 'n2' }) }),
        plugin('three', { 'session:start': () => ({ context: 'C' }) }),
      ],
    });
    const outcome = await engine.emit('session:start', { ...session, source: 'startup' });
    expect(outcome.context).toBe('A\n\nC');
    expect(outcome.notice).toBe('n1\nn2');
    expect(outcome.hooksRun).toBe(3);
  });

  it('first block wins and ends the chain on a guard point', async () => {
    const ran: string[] = [];
    const { engine } = engineWith({
      plugins: [
        plugin('allow', { 'tool:before': () => void ran.push('allow') }),
        plugin('deny', { 'tool:before': () => (ran.push('deny'), { block: { reason: 'no rm' } }) }),
        plugin('deny-too', { 'tool:before': () => (ran.push('deny-too'), { block: { reason: 'second' } }) }),
      ],
    });
    const outcome = await engine.emit('tool:before', { ...session, toolName: 'Bash', input: { command: 'rm -rf /' } });
    expect(outcome.block).toEqual({ reason: 'no rm', pluginName: 'deny', hookName: 'tool:before' });
    expect(ran).toEqual(['allow', 'deny']);
  });

  it('ignores and reports a block on an observe point', async () => {
    const { engine } = engineWith({ plugins: [plugin('rogue', { 'tool:after': () => ({ block: { reason: 'x' } }) as never })] });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.block).toBeUndefined();
    expect(outcome.errors[0]).toMatchObject({ pluginName: 'rogue', kind: 'invalid-outcome' });
  });

  it('chains transforms: each hook sees the previous value, the last one is the result', async () => {
    const seen: string[] = [];
    const { engine } = engineWith({
      plugins: [
        plugin('upper', { 'phase:end': (payload) => (seen.push(payload.output), { value: payload.output.toUpperCase() }) }),
        plugin('observer', { 'phase:end': (payload) => void seen.push(payload.output) }),
        plugin('suffix', { 'phase:end': (payload) => ({ value: `${payload.output}!` }) }),
      ],
    });
    const outcome = await engine.emit('phase:end', { ...session, output: 'done' });
    expect(seen).toEqual(['done', 'DONE']);
    expect(outcome.value).toBe('DONE!');
  });

  it('leaves value undefined when no hook transformed', async () => {
    const { engine } = engineWith({ plugins: [plugin('none', { 'phase:end': () => ({ context: 'x' }) })] });
    expect((await engine.emit('phase:end', { ...session, output: 'done' })).value).toBeUndefined();
  });

  it('rejects a transform value of the wrong type and keeps the previous value', async () => {
    const { engine } = engineWith({ plugins: [plugin('bad', { 'llm:before': () => ({ value: 'not messages' as never }) })] });
    const outcome = await engine.emit('llm:before', { ...session, systemPrompt: 's', messages: [] });
    expect(outcome.value).toBeUndefined();
    expect(outcome.errors[0]?.kind).toBe('invalid-outcome');
  });

  it('concatenates preserved labels without duplicates and hands them to compact:after', async () => {
    const received: unknown[] = [];
    const { engine } = engineWith({
      plugins: [
        plugin('commands', { 'compact:before': () => ({ preserved: ['/babysit', '/ci'] }) }),
        plugin('intent', {
          'compact:before': () => ({ preserved: ['/ci', 'intent REQ-1'] }),
          'compact:after': (payload) => void received.push(payload.preserved),
        }),
      ],
    });
    const before = await engine.emit('compact:before', { ...session, trigger: 'manual' });
    expect(before.preserved).toEqual(['/babysit', '/ci', 'intent REQ-1']);
    await engine.emit('compact:after', { ...session, trigger: 'manual' });
    expect(received).toEqual([['/babysit', '/ci', 'intent REQ-1']]);
  });
});

describe('fail open', () => {
  it('reports a hook that throws with plugin and hook name, and runs the others', async () => {
    const broken = definePlugin({
      meta: { name: 'broken', version: '1.0.0' },
      on: {
        'tool:after': {
          handler: () => {
            throw new Error('kaboom');
          },
          name: 'explode',
        },
      },
    });
    const fine = definePlugin({
      meta: { name: 'fine', version: '1.0.0' },
      on: { 'tool:after': { handler: () => ({ notice: 'still here' }), name: 'ok' } },
    });
    const { engine, eventLog, logger } = engineWith({ plugins: [broken(), fine()] });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.notice).toBe('still here');
    expect(outcome.errors).toHaveLength(1);
    expect(outcome.errors[0]).toMatchObject({ pluginName: 'broken', hookName: 'explode', kind: 'error', message: 'kaboom' });
    expect(logger.lines.join('\n')).toContain('broken › explode');
    expect((await eventLog.readAll()).map((record) => record.type)).toContain('hook:error');
  });

  it('skips a hook that passes its deadline and aborts its signal', async () => {
    let aborted = false;
    const slow = sleepyUntilAborted(() => (aborted = true));
    const fine = definePlugin({
      meta: { name: 'fine', version: '1.0.0' },
      on: { 'tool:after': { handler: () => ({ context: 'after the slow one' }), name: 'ok' } },
    });
    const { engine } = engineWith({ plugins: [slow(), fine()] }, { hookTimeoutMs: 30 });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.errors[0]).toMatchObject({ pluginName: 'slow', hookName: 'sleepy', kind: 'timeout' });
    expect(outcome.context).toBe('after the slow one');
    expect(aborted).toBe(true);
  });

  it('gives every running hook call its own deadline, with concurrent emits and after an idle spell', async () => {
    const started: number[] = [];
    const timedOut: number[] = [];
    const slow = definePlugin({
      meta: { name: 'slow', version: '1.0.0' },
      on: {
        'tool:after': {
          handler: (payload, context) => {
            const index = started.push(performance.now()) - 1;
            // `output` says how long this call takes; 'hang' never settles by itself.
            if (payload.output !== 'hang')
              return new Promise<{ notice: string }>((resolve) =>
                setTimeout(() => resolve({ notice: `done ${String(payload.output)}` }), Number(payload.output)),
              );
            return new Promise<void>((resolve) =>
              context.signal.addEventListener('abort', () => resolve(void timedOut.push(performance.now() - started[index]!))),
            );
          },
          name: 'sleepy',
        },
      },
    });
    const { engine } = engineWith({ plugins: [slow()] }, { hookTimeoutMs: 40 });
    const emit = (output: string) => engine.emit('tool:after', { ...toolAfter, output });
    // Calls start 0, 15 and 25 ms apart; the quick ones finish before their deadline.
    const first = emit('hang');
    await new Promise((resolve) => setTimeout(resolve, 15));
    const quick = emit('5');
    const second = emit('hang');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const third = emit('hang');
    const outcomes = await Promise.all([first, quick, second, third]);
    expect(outcomes.map((outcome) => outcome.errors.map((error) => error.kind))).toEqual([['timeout'], [], ['timeout'], ['timeout']]);
    expect(outcomes[1]!.notice).toBe('done 5');
    expect(outcomes[0]!.errors[0]!.message).toContain('40 ms');
    // Never before its own deadline (a timer tick of slack below 40 for the clock's rounding).
    for (const elapsed of timedOut) expect(elapsed).toBeGreaterThanOrEqual(39);
    // The queue is empty now; a call long after still gets its deadline.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const late = await emit('hang');
    expect(late.errors.map((error) => error.kind)).toEqual(['timeout']);
    expect(timedOut).toHaveLength(4);
  });

  it("returns what finished when the host's deadline passes: the running hook abandoned, the rest skipped, all logged", async () => {
    let aborted = false;
    const first = definePlugin({
      meta: { name: 'first', version: '1.0.0' },
      on: { 'tool:after': { handler: () => ({ notice: 'from the quick hook' }), name: 'quick' } },
    });
    const slow = sleepyUntilAborted(() => (aborted = true));
    const last = definePlugin({
      meta: { name: 'last', version: '1.0.0' },
      on: { 'tool:after': { handler: () => ({ context: 'too late' }), name: 'never' } },
    });
    const { engine, eventLog } = engineWith({ plugins: [first(), slow(), last()] }, { hookTimeoutMs: 60_000 });
    const host = new AbortController();
    setTimeout(() => host.abort(), 20);
    const outcome = await engine.emit('tool:after', toolAfter, { signal: host.signal });
    expect(outcome.notice).toBe('from the quick hook');
    expect(outcome.context).toBeUndefined();
    expect(aborted).toBe(true);
    expect(outcome.errors).toMatchObject([
      { pluginName: 'slow', hookName: 'sleepy', kind: 'timeout' },
      { pluginName: 'last', hookName: 'never', kind: 'timeout', message: expect.stringMatching(/^skipped: the host's deadline passed/) },
    ]);
    expect((await eventLog.readAll()).filter((record) => record.type === 'hook:error').map((record) => record.pluginName)).toEqual([
      'slow',
      'last',
    ]);
  });
  it('reports a hook whose returned thenable throws or rejects as an error, and runs the next hook', async () => {
    const odd = definePlugin({
      meta: { name: 'odd', version: '1' },
      on: {
        'tool:after': {
          handler: (payload) =>
            (payload.output === 'throws'
              ? {
                  then: () => {
                    throw new Error('then threw');
                  },
                }
              : Promise.reject(new Error('rejected'))) as never,
          name: 'h',
        },
      },
    });
    const fine = definePlugin({
      meta: { name: 'fine', version: '1' },
      on: { 'tool:after': { handler: async () => ({ context: 'yes' }), name: 'h' } },
    });
    const { engine } = engineWith({ plugins: [odd(), fine()] });
    for (const [output, message] of [
      ['throws', 'then threw'],
      ['rejects', 'rejected'],
    ]) {
      const outcome = await engine.emit('tool:after', { ...toolAfter, output });
      expect(outcome.context).toBe('yes');
      expect(outcome.errors).toMatchObject([{ pluginName: 'odd', kind: 'error', message }]);
    }
    await engine.dispose();
  });

  it('never aborts the signal of a hook call that finished before its deadline', async () => {
    let aborted = 0;
    const quick = definePlugin({
      meta: { name: 'quick', version: '1' },
      on: {
        'tool:after': { handler: async (_payload, context) => void context.signal.addEventListener('abort', () => aborted++), name: 'h' },
      },
    });
    const { engine } = engineWith({ plugins: [quick()] }, { hookTimeoutMs: 20 });
    expect((await engine.emit('tool:after', toolAfter)).errors).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(aborted).toBe(0);
  });

  it('reports an invalid payload instead of throwing', async () => {
    const { engine } = engineWith({
      plugins: [
        definePlugin({
          meta: { name: 'p', version: '1' },
          on: { 'tool:after': { handler: () => ({ context: 'x' }), name: 'h' } },
        })(),
      ],
    });
    const outcome = await engine.emit('tool:after', { ...session, toolName: 42 } as never);
    expect(outcome.hooksRun).toBe(0);
    expect(outcome.errors[0]?.kind).toBe('invalid-payload');
    expect(outcome.errors[0]?.message).toContain('toolName');
  });

  it('fills projectDir and host under the payload as `{ projectDir, host, ...input }` did: hooks get a copy, the host’s object is left as it was', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const { engine } = engineWith({
      plugins: [
        definePlugin({
          meta: { name: 'p', version: '1' },
          on: {
            'tool:after': {
              handler: (payload) => {
                seen.push({ ...payload });
                (payload as Record<string, unknown>)['toolName'] = 'changed by a hook';
              },
              name: 'h',
            },
          },
        })(),
      ],
    });
    const input = { extra: 1, ...toolAfter };
    await engine.emit('tool:after', input);
    expect(seen[0]).toMatchObject({ projectDir: engine.projectDir, host: engine.host, extra: 1 });
    expect(Object.keys(seen[0]!).slice(0, 3)).toEqual(['sessionId', 'projectDir', 'host']);
    expect(input.toolName).toBe(toolAfter.toolName);
    expect(input).not.toHaveProperty('projectDir');
    // The host's own values win.
    await engine.emit('tool:after', { ...toolAfter, projectDir: '/elsewhere', host: 'other' });
    expect(seen[1]).toMatchObject({ projectDir: '/elsewhere', host: 'other' });
    // Not a plain object: spread first, as before (own fields kept, a prototype's getter not).
    class Input {
      constructor(readonly toolName: string) {
        Object.assign(this, { ...toolAfter, toolName });
      }
      get extraFromPrototype(): number {
        return 2;
      }
    }
    await engine.emit('tool:after', new Input('Grep') as never);
    expect(seen[2]).toMatchObject({ toolName: 'Grep', projectDir: engine.projectDir });
    expect(seen[2]).not.toHaveProperty('extraFromPrototype');
    class NoSession {
      get sessionId(): string {
        return 'from a getter';
      }
    }
    const { sessionId: _own, ...withoutSession } = toolAfter;
    const refused = await engine.emit('tool:after', Object.assign(new NoSession(), withoutSession) as never);
    expect(refused.errors[0]?.message).toContain('sessionId');
    const nothing = await engine.emit('tool:after', undefined as never);
    expect(nothing.errors[0]).toMatchObject({ kind: 'invalid-payload', message: expect.stringContaining('sessionId') });
  });

  it("builds a point's zod schema only for a payload its plain-code check refuses (to word the error)", () =>
    withZodCalls(zodMocking, async (calls) => {
      const fresh = { ...(await import('./engine.js')), ...(await import('./plugin.js')), ...(await import('./hooks.js')) };
      const engine = fresh.createEngine({
        config: {
          plugins: [
            fresh.definePlugin({
              meta: { name: 'p', version: '1' },
              on: { 'tool:after': { handler: () => ({ context: 'x' }), name: 'h' } },
            })(),
          ],
        },
        projectDir: tmpdir(),
        host: 'test',
        stateStore: createMemoryStateStore(),
        eventLog: createMemoryEventLog(),
      });
      expect((await engine.emit('tool:after', toolAfter)).context).toBe('x');
      expect(calls).not.toContain('looseObject');
      const refused = await engine.emit('tool:after', { ...session, toolName: 42 } as never);
      expect(refused.errors[0]?.message).toContain('toolName');
      expect(calls).toContain('looseObject');
    }));

  it("checks llm:before's history: plugins get a copy of a sound one, a bad message is reported as the schema says", async () => {
    let seen: unknown;
    const { engine } = engineWith({
      plugins: [
        definePlugin({
          meta: { name: 'p', version: '1' },
          on: { 'llm:before': { handler: (payload) => void (seen = payload.messages), name: 'h' } },
        })(),
      ],
    });
    const history = [
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', parts: [] },
    ];
    const sound = await engine.emit('llm:before', { ...session, systemPrompt: '', messages: history } as never);
    expect(sound.errors).toEqual([]);
    expect(seen).toEqual(history);
    expect(seen).not.toBe(history);
    expect((seen as unknown[])[0]).toBe(history[0]);
    for (const messages of [[history[0], { role: 'user' }], [history[0], , history[1]], 'not a list']) {
      seen = undefined;
      const outcome = await engine.emit('llm:before', { ...session, systemPrompt: '', messages } as never);
      expect(outcome.hooksRun).toBe(0);
      expect(seen).toBeUndefined();
      expect(outcome.errors[0]?.kind).toBe('invalid-payload');
      expect(outcome.errors[0]?.message).toContain('messages');
    }
  });

  it('reports a plugin whose register throws on each of its hooks, without stopping others', async () => {
    const failing = definePlugin({
      meta: { name: 'failing', version: '1' },
      on: { 'tool:after': { handler: () => ({ context: 'never' }), name: 'h' } },
      register: () => {
        throw new Error('no service');
      },
    });
    const fine = definePlugin({
      meta: { name: 'fine', version: '1' },
      on: { 'tool:after': { handler: () => ({ context: 'yes' }), name: 'h' } },
    });
    const { engine } = engineWith({ plugins: [failing(), fine()] });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.context).toBe('yes');
    expect(outcome.errors[0]).toMatchObject({ pluginName: 'failing', message: 'no service' });
  });
});

describe('plugins and DI', () => {
  @injectable()
  class Counter {
    constructor(
      @inject(SESSION_STATE) private readonly state: SessionState,
      @inject(PLUGIN_OPTIONS) private readonly options: { step: number },
      @inject(TOKEN_COUNTER) private readonly tokens: TokenCounter,
    ) {}

    @On('tool:after')
    async count(payload: { output: unknown }) {
      const next = await this.state.update<number>((current) => (current ?? 0) + this.options.step);
      return { context: `calls=${next} tokens=${this.tokens.count(String(payload.output))}` };
    }
  }
  const counter = definePlugin({
    meta: { name: 'counter', version: '1.0.0' },
    options: z.object({ step: z._default(z.number(), 1) }),
    hooks: [Counter],
  });

  it('resolves decorated hook classes with injected services and validated options', async () => {
    const { engine } = engineWith({ plugins: [counter({ step: 2 })] });
    await engine.emit('tool:after', toolAfter);
    const outcome = await engine.emit('tool:after', toolAfter);
    // The injected counter is core's default (calibrated): 'a\nb' is 2 tokens at 2.52 chars a token.
    expect(outcome.context).toBe('calls=4 tokens=2');
  });

  it('keeps one instance per session and separate state per session', async () => {
    const { engine } = engineWith({ plugins: [counter()] });
    await engine.emit('tool:after', toolAfter);
    const other = await engine.emit('tool:after', { ...toolAfter, sessionId: 'session-2' });
    expect(other.context).toBe('calls=1 tokens=2');
  });

  it('constructs a hook class once per session', async () => {
    let constructed = 0;
    @injectable()
    class Probe {
      constructor() {
        constructed++;
      }
      @On('tool:after')
      seen() {}
    }
    const probe = definePlugin({ meta: { name: 'probe', version: '1.0.0' }, hooks: [Probe] });
    const { engine } = engineWith({ plugins: [probe()] });
    await engine.emit('tool:after', toolAfter);
    await engine.emit('tool:after', toolAfter);
    await engine.emit('tool:after', { ...toolAfter, sessionId: 'session-2' });
    expect(constructed).toBe(2);
  });

  it('a plain-function hook gets the same container services from context.container once DI is loaded', async () => {
    let seen: Record<string, unknown> | undefined;
    const asks = definePlugin({
      meta: { name: 'asks', version: '1.0.0' },
      options: z.object({ step: z._default(z.number(), 3) }),
      on: {
        'tool:after': (_payload, context) => {
          const container = context.container!;
          seen = {
            same: container === context.container,
            options: container.resolve(PLUGIN_OPTIONS),
            state: container.resolve(SESSION_STATE) === context.state,
            session: container.resolve(SESSION_ID),
            tokens: container.resolve(TOKEN_COUNTER) === context.tokenCounter,
          };
        },
      },
    });
    const { engine } = engineWith({ plugins: [asks()] });
    await engine.emit('tool:after', toolAfter);
    expect(seen).toEqual({ same: true, options: { step: 3 }, state: true, session: toolAfter.sessionId, tokens: true });
    expect(engine.sessionContainer(toolAfter.sessionId).resolve(SESSION_ID)).toBe(toolAfter.sessionId);
    await engine.dispose();
  });

  it('validates options when the engine is built, naming the plugin', () => {
    expect(() => engineWith({ plugins: [counter({ step: 'two' } as never)] })).toThrowError(
      /\[counter\] invalid options[\s\S]*expected number[\s\S]*step/,
    );
  });

  it('runs plugin commands against the last started session', async () => {
    const withCommand = definePlugin({
      meta: { name: 'cmd', version: '1.0.0' },
      hooks: [],
      commands: [{ name: 'cmd show', description: 'show', run: async (args, context) => `${context.sessionId}:${args.join(',')}` }],
    });
    const { engine } = engineWith({ plugins: [withCommand()] });
    await expect(engine.runCommand('cmd show', ['a'])).rejects.toThrow(/no session has started/);
    await engine.emit('session:start', { sessionId: 'abc', source: 'startup' });
    expect(await engine.runCommand('cmd show', ['a', 'b'])).toBe('abc:a,b');
    expect(await engine.runCommand('cmd show', [], { sessionId: 'other' })).toBe('other:');
    await expect(engine.runCommand('nope', [])).rejects.toThrow(/unknown command "nope"[\s\S]*cmd show/);
    await expect(engine.runCommand('cmd show', [], { sessionId: '../etc' })).rejects.toThrow(/refused session id/);
    expect(engine.commands()).toEqual([{ pluginName: 'cmd', name: 'cmd show', description: 'show' }]);
  });

  it('refuses unknown lifecycle points at build time', () => {
    const bad = definePlugin({
      meta: { name: 'bad', version: '1' },
      on: { 'tool:during': () => undefined } as never,
    });
    expect(() => engineWith({ plugins: [bad()] })).toThrowError(/\[bad › tool:during\] unknown lifecycle point "tool:during"/);
  });

  it('returns quickly with nothing to do when no hook listens', async () => {
    const { engine } = engineWith({});
    expect(engine.has('tool:after')).toBe(false);
    expect(await engine.emit('tool:after', toolAfter)).toEqual({
      point: 'tool:after',
      notices: [],
      preserved: [],
      measurements: {},
      errors: [],
      hooksRun: 0,
    });
  });
});

describe('issue 11: engine bugs and the structured notice', () => {
  const plugin = (name: string, on: HookMap, commands: Parameters<typeof definePlugin>[0]['commands'] = []) =>
    definePlugin({ meta: { name, version: '1.0.0' }, on, commands })();

  it('runs a detached runCommand (was a TypeError on `this`)', async () => {
    const withCommand = plugin('cmd', {}, [{ name: 'cmd show', description: 'show', run: (_args, context) => context.sessionId }]);
    const { engine } = engineWith({ plugins: [withCommand] });
    const { runCommand } = engine;
    expect(await runCommand('cmd show', [], { sessionId: 's9' })).toBe('s9');
    await expect(runCommand('nope', [], { sessionId: 's9' })).rejects.toThrow(/unknown command "nope"[\s\S]*cmd show/);
  });

  it('clears labels saved at compact:before once compact:after took them (no stale labels later)', async () => {
    const received: unknown[] = [];
    let now = 1_000_000;
    const keep = plugin('keep', {
      'compact:before': () => ({ preserved: ['/babysit'] }),
      'compact:after': (payload) => void received.push(payload.preserved),
    });
    const { engine: timed } = engineWith({ plugins: [keep] }, { clock: { now: () => now } });
    await timed.emit('compact:before', { ...session, trigger: 'manual' });
    await timed.emit('compact:after', { ...session });
    now += 60 * 60_000; // an hour later, a compaction the host reports without compact:before
    await timed.emit('compact:after', { ...session, trigger: 'auto' });
    expect(received).toEqual([['/babysit'], undefined]);
  });

  it('fills the trigger from the matching compact:before and drops a second report of the same compaction', async () => {
    const received: unknown[] = [];
    const { engine } = engineWith({
      plugins: [plugin('watch', { 'compact:before': () => undefined, 'compact:after': (payload) => void received.push(payload.trigger) })],
    });
    await engine.emit('compact:before', { ...session, trigger: 'auto' });
    const first = await engine.emit('compact:after', { ...session });
    const again = await engine.emit('compact:after', { ...session });
    expect(received).toEqual(['auto']);
    expect([first.hooksRun, again.hooksRun]).toEqual([1, 0]);
  });

  it('carries what a notice is about and actions naming the plugin’s own commands; refuses others', async () => {
    const { engine } = engineWith({
      plugins: [
        plugin(
          'suggest-like',
          {
            'tool:after': () => ({
              notice: {
                text: 'Context at 72%.',
                about: ['capacity'],
                actions: [
                  { label: 'Compact now', hostAction: 'compact' },
                  { label: 'Dismiss', command: 'x dismiss', note: 'quiet until 80%' },
                  { label: 'Steal', command: 'other secret' },
                ],
              },
            }),
          },
          [{ name: 'x dismiss', description: 'quiet', run: () => 'ok' }],
        ),
        plugin('plain', { 'tool:after': () => ({ notice: 'plain text' }) }),
      ],
    });
    const outcome = await engine.emit('tool:after', toolAfter);
    // The merged text words the offers host-neutrally; the statement stays for hosts that word them.
    const suggestText = 'Context at 72%. Consider compacting the context now. (hookwise x dismiss: quiet until 80%)';
    expect(outcome.notice).toBe(`${suggestText}\nplain text`);
    expect(outcome.notices).toEqual([
      {
        text: suggestText,
        statement: 'Context at 72%.',
        about: ['capacity'],
        pluginName: 'suggest-like',
        hookName: 'tool:after',
        actions: [
          { label: 'Compact now', hostAction: 'compact' },
          { label: 'Dismiss', command: 'x dismiss', note: 'quiet until 80%' },
        ],
      },
      { text: 'plain text', statement: 'plain text', about: [], pluginName: 'plain', hookName: 'tool:after', actions: [] },
    ]);
    expect(outcome.errors).toMatchObject([
      { pluginName: 'suggest-like', kind: 'invalid-outcome', message: expect.stringContaining('"Steal" names no command') },
    ]);
  });

  it('lets tool:after hooks replace the output, chained', async () => {
    const seen: unknown[] = [];
    const { engine } = engineWith({
      plugins: [
        plugin('trim', { 'tool:after': (payload) => ({ value: String(payload.output).slice(0, 1) }) }),
        plugin('wrap', { 'tool:after': (payload) => (seen.push(payload.output), { value: { text: payload.output } }) }),
      ],
    });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(seen).toEqual(['a']);
    expect(outcome.value).toEqual({ text: 'a' });
  });

  it('logs each hook failure once, with the label and details a host gives', async () => {
    const { engine, logger } = engineWith({
      plugins: [
        plugin('broken', {
          'llm:before': () => {
            throw new Error('boom');
          },
        }),
      ],
    });
    await engine.emit(
      'llm:before',
      { ...session, systemPrompt: 's', messages: [] },
      { label: '[Task#t1] for intent REQ-1', details: { taskId: 't1', intentId: 'REQ-1' } },
    );
    const lines = logger.lines.filter((line) => line.includes('boom'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('[Task#t1] for intent REQ-1 broken › llm:before failed: boom (skipped)');
    expect(lines[0]).toContain('"intentId":"REQ-1"');
    expect(lines[0]).toContain('"stack":"Error: boom');
  });

  it('tells plugins whether they may write files of their own', async () => {
    const seen: boolean[] = [];
    const hooks = { 'session:start': (_payload: unknown, context: { ephemeral: boolean }) => void seen.push(context.ephemeral) };
    await engineWith({ plugins: [plugin('p', hooks as never)] }).engine.emit('session:start', { ...session, source: 'startup' });
    await engineWith({ plugins: [plugin('p', hooks as never)] }, { ephemeral: true }).engine.emit('session:start', {
      ...session,
      source: 'startup',
    });
    expect(seen).toEqual([false, true]);
  });
});

describe('failure lines stay one line for plain calls', () => {
  it('adds kind and stack only when the host names the call', async () => {
    const plugin = definePlugin({
      meta: { name: 'broken', version: '1.0.0' },
      on: {
        'tool:after': {
          handler: () => {
            throw new Error('boom');
          },
          name: 'b',
        },
      },
    })();
    const { engine, logger } = engineWith({ plugins: [plugin] });
    await engine.emit('tool:after', toolAfter, { signal: new AbortController().signal });
    expect(logger.lines.filter((line) => line.includes('boom'))).toEqual([
      'hookwise warn: broken › b on tool:after failed: boom (skipped)',
    ]);
  });
});
