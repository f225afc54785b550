import { expect, it, vi } from 'vitest';
import { expectOptionsSchemaBuiltOnFirstUse, withZodCalls, type ZodMocking } from '../../../test-support/zod-calls.js';

const zodMocking: ZodMocking = { mock: (factory) => vi.doMock('zod/mini', factory), unmock: () => vi.doUnmock('zod/mini') };

it('public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('builds no zod schema at import (a hook call whose options were checked needs none); the plugin builds its schema once, on first use', () =>
  expectOptionsSchemaBuiltOnFirstUse(
    zodMocking,
    () => import('./index.js'),
    (module) => module.prunePluginOptionsSchema,
    { keepRecent: -1 },
    (module) => () => module.prune({ keepRecent: 2 }),
  ));

it('resolves no options to what the schema makes of them, without building it', () =>
  withZodCalls(zodMocking, async (calls) => {
    const module = await import('./index.js');
    expect(module.prune().resolveOptions()).toEqual({});
    expect(module.prune({}).resolveOptions()).toEqual({});
    expect(calls).toEqual([]);
    // The spec: the schema's own result for no options.
    const parsed = module.prunePluginOptionsSchema().safeParse({});
    expect(parsed.success && parsed.data).toEqual({});
  }));
