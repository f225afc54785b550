import { expect, it, vi } from 'vitest';
import { expectOptionsSchemaBuiltOnFirstUse, type ZodMocking } from '../../../test-support/zod-calls.js';

const zodMocking: ZodMocking = { mock: (factory) => vi.doMock('zod/mini', factory), unmock: () => vi.doUnmock('zod/mini') };

it('public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('builds no zod schema at import (a hook call whose options were checked needs none); the plugin builds its schema once, on first use', () => expectOptionsSchemaBuiltOnFirstUse(zodMocking, () => import('./index.js'), (module) => module.prunePluginOptionsSchema, { keepRecent: -1 }, (module) => module.prune));
