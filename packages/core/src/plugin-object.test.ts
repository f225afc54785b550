import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineConfig, type HookwiseConfig } from './config.js';
import { createEngine } from './engine.js';
import type { HookMap } from './hooks.js';
import { createMemoryLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { createMemoryEventLog } from './state/event-log.js';
import { createMemoryStateStore } from './state/file-state-store.js';
import type { EventLog } from './state/types.js';

const session = { sessionId: 's1', projectDir: '/p', host: 'test' };
const toolAfter = { ...session, toolName: 'Bash', input: { command: 'ls' }, output: 'a', ok: true };

function engineWith(config: HookwiseConfig, eventLog: EventLog = createMemoryEventLog()) {
  const logger = createMemoryLogger();
  const engine = createEngine({ config, projectDir: '/p', host: 'test', stateStore: createMemoryStateStore(), eventLog, logger });
  return { engine, eventLog, logger };
}

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('a plugin is one object', () => {
  it('runs the README example ("Writing a plugin") as written: used as plugins: [counter()]', async () => {
    const block = /## Writing a plugin[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toContain("on: { 'tool:after':");
    // Plain JavaScript once `export` goes: run exactly that code with core's definePlugin.
    const counter = new Function('definePlugin', `${block!.replace(/^export /m, '')}\nreturn counter;`)(definePlugin) as ReturnType<
      typeof definePlugin
    >;

    const { engine } = engineWith(defineConfig({ plugins: [counter()] }));
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.notice).toBe('Bash ran');
    expect(outcome.notices).toMatchObject([{ pluginName: 'tool-counter', hookName: 'tool:after', about: [] }]);
  });

  it('runs a plugin’s pre hooks first and post hooks last, a hook’s own order winning', async () => {
    const calls: string[] = [];
    const named = (name: string, order?: 'pre' | 'post') =>
      definePlugin({ meta: { name, version: '1' }, ...(order ? { order } : {}), on: { 'tool:after': () => void calls.push(name) } })();
    const mixed = definePlugin({
      meta: { name: 'mixed', version: '1' },
      order: 'post',
      on: { 'tool:after': { handler: () => void calls.push('mixed'), order: 'pre' } },
    })();
    const { engine } = engineWith({ plugins: [named('late', 'post'), named('plain'), named('early', 'pre'), mixed] });
    await engine.emit('tool:after', toolAfter);
    expect(calls).toEqual(['early', 'mixed', 'plain', 'late']);
  });

  it('takes a config’s own hooks as an on map, after the plugins’ hooks: several on a point as a list, each with its name and order', async () => {
    const calls: string[] = [];
    const plugin = definePlugin({ meta: { name: 'p', version: '1' }, on: { 'tool:after': () => void calls.push('plugin') } });
    const { engine } = engineWith(
      defineConfig({
        plugins: [plugin()],
        on: {
          'tool:after': [
            { handler: () => void calls.push('config last'), order: 'post', name: 'last' },
            () => (calls.push('config on'), { context: 'from the project' }),
            { handler: () => void calls.push('config named'), name: 'remind' },
          ],
        },
      }),
    );
    const outcome = await engine.emit('tool:after', toolAfter);
    // Each hook of a list is typed by its point, as a single one is: tool:after cannot block.
    // @ts-expect-error a block is no tool:after outcome
    const mistyped: HookMap = { 'tool:after': [{ handler: () => ({ block: { reason: 'no' } }) }] };
    void mistyped;
    expect(calls).toEqual(['plugin', 'config on', 'config named', 'config last']);
    expect(outcome.context).toBe('from the project');
    expect(engine.hooksFor('tool:after').map((hook) => `${hook.pluginName} › ${hook.hookName}`)).toEqual([
      'p › tool:after',
      'config › tool:after',
      'config › remind',
      'config › last',
    ]);
  });

  describe('refuses the removed ways of declaring hooks, naming what to write instead', () => {
    // What `defineHook` made (any copy of core: a plugin built against an older one).
    const oldSet = { [Symbol.for('hookwise.HookSet')]: true, name: 'legacy', on: { 'tool:after': () => undefined } };

    it('a plugin listing defineHook(...) sets in hooks', () => {
      const old = definePlugin({ meta: { name: 'old', version: '1' }, hooks: [oldSet as never] });
      expect(() => engineWith({ plugins: [old()] })).toThrow(
        /\[old\] hooks\[0\] is a defineHook\(\.\.\.\) set, which hookwise no longer takes: write the hooks under `on` instead: `on: \{ 'tool:after': fn \}`/,
      );
    });

    it('a plugin listing a plain function, or a class without @On methods, in hooks', () => {
      class Plain {}
      for (const entry of [() => undefined, Plain]) {
        const odd = definePlugin({ meta: { name: 'odd', version: '1' }, hooks: [entry as never] });
        expect(() => engineWith({ plugins: [odd()] })).toThrow(
          /\[odd\] hooks\[0\] is not an @injectable class with @On methods; .*a plain hook function goes under on: \{ 'tool:after': fn \}/,
        );
      }
    });

    it('a defineHook(...) set put in on', () => {
      const odd = definePlugin({ meta: { name: 'odd', version: '1' }, on: { 'tool:after': oldSet as never } });
      expect(() => engineWith({ plugins: [odd()] })).toThrow(
        /on\["tool:after"\] is a defineHook\(\.\.\.\) set.*write the hooks under `on`/,
      );
    });

    it('a config given to the engine with hooks (a host that skips loadConfig)', () => {
      expect(() => engineWith({ hooks: [oldSet] } as never)).toThrow(
        /\[config\] the config's `hooks` is no longer taken: write the hooks under `on` instead/,
      );
    });
  });

  it('gives a hook no container while dependency injection is not loaded', async () => {
    let seen: { has: boolean; value: unknown } | undefined;
    const plain = definePlugin({
      meta: { name: 'plain', version: '1' },
      on: { 'tool:after': (_payload, context) => void (seen = { has: 'container' in context, value: context.container }) },
    });
    const { engine } = engineWith({ plugins: [plain()] });
    await engine.emit('tool:after', toolAfter);
    expect(seen).toEqual({ has: false, value: undefined });
  });

  it('refuses an unknown point or a hook that is not a function when the engine is built', () => {
    const unknown = definePlugin({ meta: { name: 'bad', version: '1' }, on: { 'tool:sideways': () => undefined } as never });
    expect(() => engineWith({ plugins: [unknown()] })).toThrow(/unknown lifecycle point "tool:sideways"/);
    const notFunction = definePlugin({ meta: { name: 'bad', version: '1' }, on: { 'tool:after': 42 } as never });
    expect(() => engineWith({ plugins: [notFunction()] })).toThrow(/on\["tool:after"\] is not a function/);
    const badOrder = definePlugin({
      meta: { name: 'bad', version: '1' },
      on: { 'tool:after': [() => undefined, { handler: () => undefined, order: 'last' }] } as never,
    });
    expect(() => engineWith({ plugins: [badOrder()] })).toThrow(
      /\[bad › tool:after\] on\["tool:after"\]\[1\] has order "last": 'pre' or 'post'/,
    );
    const badName = definePlugin({ meta: { name: 'bad', version: '1' }, on: { 'tool:after': { handler: () => undefined, name: '' } } });
    expect(() => engineWith({ plugins: [badName()] })).toThrow(/on\["tool:after"\] has a name that is not a non-empty string/);
  });
});

describe('context.record', () => {
  it('appends to the event log with the plugin name and session id filled in', async () => {
    const plugin = definePlugin({
      meta: { name: 'recorder', version: '1' },
      // Passed around on its own, as plugins do with their services.
      on: { 'tool:after': async (payload, { record }) => void (await record({ type: 'recorder:saw', toolName: payload.toolName })) },
    });
    const { engine, eventLog } = engineWith({ plugins: [plugin()] });
    await engine.emit('tool:after', toolAfter);
    expect(await eventLog.readAll()).toMatchObject([{ type: 'recorder:saw', toolName: 'Bash', sessionId: 's1', pluginName: 'recorder' }]);
  });

  it('never throws: a failing write is logged at warn once, then at debug', async () => {
    const failing: EventLog = { path: '/nowhere', append: async () => Promise.reject(new Error('disk full')), readAll: async () => [] };
    const plugin = definePlugin({
      meta: { name: 'recorder', version: '1' },
      on: { 'tool:after': async (_payload, context) => (await context.record({ type: 'recorder:saw' }), { notice: 'still here' }) },
    });
    const { engine, logger } = engineWith({ plugins: [plugin()] }, failing);
    const first = await engine.emit('tool:after', toolAfter);
    const second = await engine.emit('tool:after', toolAfter);
    expect([first.notice, second.notice, first.errors, second.errors]).toEqual(['still here', 'still here', [], []]);
    expect(logger.lines.filter((line) => line.includes('could not write the event log'))).toEqual([
      'hookwise warn: recorder: could not write the event log: disk full',
      'hookwise debug: recorder: could not write the event log: disk full',
    ]);
  });
});

describe('measurements', () => {
  it('are read by later hooks of the same emit and merged into the outcome; the payload is never changed', async () => {
    const seen: unknown[] = [];
    const measurer = definePlugin({
      meta: { name: 'measurer', version: '1' },
      order: 'pre',
      on: { 'compact:before': (payload) => ({ measurements: { contextTokens: 120_000, contextWindow: 200_000 } }) },
    });
    const reader = definePlugin({
      meta: { name: 'reader', version: '1' },
      on: {
        'compact:before': (payload, context) => {
          seen.push({ measured: context.measurements, payloadTokens: payload.contextTokens });
          return { measurements: { contextTokens: 121_000 } };
        },
      },
    });
    const { engine } = engineWith({ plugins: [reader(), measurer()] });
    const outcome = await engine.emit('compact:before', { ...session, trigger: 'manual' });
    expect(seen).toEqual([{ measured: { contextTokens: 120_000, contextWindow: 200_000 }, payloadTokens: undefined }]);
    expect(outcome.measurements).toEqual({ contextTokens: 121_000, contextWindow: 200_000 });
  });

  it('cannot be changed by a later hook through its context', async () => {
    const first = definePlugin({ meta: { name: 'first', version: '1' }, on: { 'tool:after': () => ({ measurements: { size: 1 } }) } });
    const second = definePlugin({
      meta: { name: 'second', version: '1' },
      on: { 'tool:after': (_payload, context) => void Reflect.set(context.measurements, 'size', 99) },
    });
    const { engine } = engineWith({ plugins: [first(), second()] });
    expect((await engine.emit('tool:after', toolAfter)).measurements).toEqual({ size: 1 });
  });

  it('refuses figures that are not finite numbers, keeping the rest', async () => {
    const plugin = definePlugin({
      meta: { name: 'm', version: '1' },
      on: { 'tool:after': () => ({ measurements: { good: 3, bad: Number.NaN, text: '4' as never } }) },
    });
    const { engine } = engineWith({ plugins: [plugin()] });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.measurements).toEqual({ good: 3 });
    expect(outcome.errors.map((error) => error.message)).toEqual([
      'measurement "bad" must be a finite number',
      'measurement "text" must be a finite number',
    ]);
  });
});

describe('what a notice is about', () => {
  it('is data the plugin sets, kept in the merged notice', async () => {
    const plugin = definePlugin({
      meta: { name: 'about', version: '1' },
      on: { 'tool:after': () => ({ notice: { text: 'Many calls.', about: ['tool-calls', 'capacity'] } }) },
    });
    const { engine } = engineWith({ plugins: [plugin()] });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.notices.map((notice) => notice.about)).toEqual([['tool-calls', 'capacity']]);
  });

  it('refuses an about that is not a list of words', async () => {
    const plugin = definePlugin({
      meta: { name: 'about', version: '1' },
      on: { 'tool:after': () => ({ notice: { text: 'x', about: 'capacity' as never } }) },
    });
    const { engine } = engineWith({ plugins: [plugin()] });
    const outcome = await engine.emit('tool:after', toolAfter);
    expect(outcome.notices.map((notice) => notice.about)).toEqual([[]]);
    expect(outcome.errors.map((error) => error.message)).toEqual(['notice about must be a list of strings']);
  });
});
