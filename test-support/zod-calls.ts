import { expect, vi } from 'vitest';

/** Mocks and unmocks `zod/mini` as the test file resolves it (vitest resolves a mocked path from the file that calls vi.doMock). */
export interface ZodMocking {
  mock: (factory: (importOriginal: <T>() => Promise<T>) => Promise<Record<string, unknown>>) => void;
  unmock: () => void;
}

/**
 * Runs `run` with `zod/mini` wrapped for every module imported after this point (through the
 * test file's `mocking`, and vi.resetModules), recording the name of each schema or check maker
 * called (its lowercase functions; classes are capitalised), and removes the wrapper afterwards.
 * A hook call must build no schema: tests of the packages on its path use it to hold that.
 */
export async function withZodCalls<T>(mocking: ZodMocking, run: (calls: readonly string[]) => Promise<T>): Promise<T> {
  vi.resetModules();
  const calls: string[] = [];
  mocking.mock(async (importOriginal) => {
    const zod = await importOriginal<Record<string, unknown>>();
    return Object.fromEntries(Object.entries(zod).map(([key, value]) => [key, typeof value === 'function' && /^[a-z_]/.test(key) ? (...args: unknown[]) => (calls.push(key), (value as (...args: unknown[]) => unknown)(...args)) : value]));
  });
  try {
    return await run(calls);
  } finally {
    mocking.unmock();
    vi.resetModules();
  }
}

/**
 * A plugin's index builds no zod schema when imported, and its options schema maker builds one
 * schema, once, which accepts `{}` and refuses `bad`.
 */
export async function expectOptionsSchemaBuiltOnFirstUse<M>(mocking: ZodMocking, load: () => Promise<M>, maker: (module: M) => () => { safeParse(value: unknown): { success: boolean } }, bad: unknown): Promise<void> {
  await withZodCalls(mocking, async (calls) => {
    const makeSchema = maker(await load());
    expect(calls).toEqual([]);
    const schema = makeSchema();
    expect(calls.length).toBeGreaterThan(0);
    const made = calls.length;
    expect(makeSchema()).toBe(schema);
    expect(calls).toHaveLength(made);
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse(bad).success).toBe(false);
  });
}
