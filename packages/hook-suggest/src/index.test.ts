import { expect, it, vi } from 'vitest';
import { expectOptionsSchemaBuiltOnFirstUse, type ZodMocking } from '../../../test-support/zod-calls.js';

const zodMocking: ZodMocking = { mock: (factory) => vi.doMock('zod/mini', factory), unmock: () => vi.doUnmock('zod/mini') };

it('exports the public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('exports the plugin by name and as default', async () => {
  const module = await import('./index.js');
  expect(module.default).toBe(module.suggest);
  expect(module.suggest.meta.name).toBe('@hookwise/hook-suggest');
});

it('builds no zod schema at import (a hook call whose options were checked needs none); the plugin builds its schema once, on first use', () =>
  expectOptionsSchemaBuiltOnFirstUse(
    zodMocking,
    () => import('./index.js'),
    (module) => module.suggestOptionsSchema,
    { toolCalls: 2.5 },
    (module) => module.suggest,
  ));
