import type { HookCallback, HookCallbackMatcher, HookEvent, Options } from '@anthropic-ai/claude-agent-sdk';
import { describe, expectTypeOf, it } from 'vitest';
import { hookwiseHooks, type HookwiseHookCallback, type HookwiseHookCallbackMatcher } from './agent-sdk.js';

// Checked by `vitest --typecheck` (see vitest.config.ts): hookwise's structural types must stay
// assignable to the SDK's own, so `query({ options: { hooks: hookwiseHooks() } })` compiles.
describe('hookwiseHooks against @anthropic-ai/claude-agent-sdk types', () => {
  it('is the `hooks` option of query()', () => {
    expectTypeOf(hookwiseHooks()).toExtend<NonNullable<Options['hooks']>>();
    expectTypeOf(hookwiseHooks()).toExtend<Partial<Record<HookEvent, HookCallbackMatcher[]>>>();
  });

  it('its matcher and callback are the SDK matcher and callback', () => {
    expectTypeOf<HookwiseHookCallbackMatcher>().toExtend<HookCallbackMatcher>();
    expectTypeOf<HookwiseHookCallback>().toExtend<HookCallback>();
  });
});
