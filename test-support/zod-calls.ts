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
    return Object.fromEntries(
      Object.entries(zod).map(([key, value]) => [
        key,
        typeof value === 'function' && /^[a-z_]/.test(key)
          ? (...args: unknown[]) => (calls.push(key), (value as (...args: unknown[]) => unknown)(...args))
          : value,
      ]),
    );
  });
  try {
    return await run(calls);
  } finally {
    mocking.unmock();
    vi.resetModules();
  }
}

/**
 * A plugin's index builds no zod schema when imported, its options schema maker builds one that
 * accepts `{}` and refuses `bad`, and the plugin's definition builds its schema once, on first
 * use (core's `definePlugin` keeps it: no module of the plugin does).
 */
export async function expectOptionsSchemaBuiltOnFirstUse<M>(
  mocking: ZodMocking,
  load: () => Promise<M>,
  maker: (module: M) => () => { safeParse(value: unknown): { success: boolean } },
  bad: unknown,
  factory: (module: M) => (options?: never) => { resolveOptions(): unknown },
): Promise<void> {
  await withZodCalls(mocking, async (calls) => {
    const module = await load();
    const makeSchema = maker(module);
    expect(calls).toEqual([]);
    const schema = makeSchema();
    expect(calls.length).toBeGreaterThan(0);
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse(bad).success).toBe(false);
    const instance = factory(module)();
    const before = calls.length;
    instance.resolveOptions();
    const built = calls.length;
    expect(built).toBeGreaterThan(before);
    instance.resolveOptions();
    expect(calls).toHaveLength(built);
  });
}
