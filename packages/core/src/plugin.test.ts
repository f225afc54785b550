import * as z from 'zod/mini';
import { describe, expect, it, vi } from 'vitest';
import { definePlugin, withResolvedOptions } from './plugin.js';
import { parseWith } from './schema.js';

const buildSchema = () => z.strictObject({ step: z._default(z.number().check(z.int(), z.positive()), 1), label: z.optional(z.string()) });
const errorOf = (call: () => unknown): Error => {
  try {
    call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
};

describe('definePlugin options', () => {
  it('a schema given as a function is built on first validation, once for every instance', () => {
    const build = vi.fn(buildSchema);
    const counter = definePlugin({ meta: { name: 'counter', version: '1.0.0' }, options: build, hooks: [] });
    const first = counter({ step: 2 });
    const second = counter();
    // Defining the plugin and making instances (what importing a config does) builds nothing.
    expect(build).not.toHaveBeenCalled();
    expect(first.resolveOptions()).toEqual({ step: 2 });
    expect(second.resolveOptions()).toEqual({ step: 1 });
    expect(counter({ step: 3, label: 'x' }).resolveOptions()).toEqual({ step: 3, label: 'x' });
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('words a bad option the same whether the schema is given built or as a function', () => {
    const eager = definePlugin({ meta: { name: 'counter', version: '1.0.0' }, options: buildSchema(), hooks: [] });
    const lazy = definePlugin({ meta: { name: 'counter', version: '1.0.0' }, options: buildSchema, hooks: [] });
    for (const bad of [{ step: 0 }, { step: 'two' }, { stpe: 1 }]) {
      const fromEager = errorOf(() => eager(bad as never).resolveOptions(parseWith));
      const fromLazy = errorOf(() => lazy(bad as never).resolveOptions(parseWith));
      expect(fromLazy.message).toBe(fromEager.message);
      expect(fromLazy).toMatchObject({ code: 'HW_PLUGIN' });
    }
    expect(errorOf(() => lazy({ step: 'two' } as never).resolveOptions(parseWith)).message).toBe(
      '[counter] invalid options\n✖ Invalid input: expected number, received string\n  → at step',
    );
  });

  it("refuses a bad option without a host's parser too, with the schema error's own text", () => {
    const counter = definePlugin({ meta: { name: 'counter', version: '1.0.0' }, options: buildSchema, hooks: [] });
    const error = errorOf(() => counter({ step: 'two' } as never).resolveOptions());
    expect(error).toMatchObject({ code: 'HW_PLUGIN' });
    expect(error.message).toMatch(/^\[counter\] invalid options\n[\s\S]*"step"/);
  });

  it('an instance with its options resolved already returns them without validating', () => {
    const build = vi.fn(buildSchema);
    const counter = definePlugin({ meta: { name: 'counter', version: '1.0.0' }, options: build, hooks: [] });
    const resolved = { step: 5 };
    const instance = withResolvedOptions(counter({ step: 5 }), resolved);
    expect(instance.resolveOptions()).toBe(resolved);
    expect(instance.meta.name).toBe('counter');
    expect(instance.rawOptions).toEqual({ step: 5 });
    expect(build).not.toHaveBeenCalled();
  });
});
