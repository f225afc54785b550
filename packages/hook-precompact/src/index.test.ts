import { expect, it, vi } from 'vitest';

it('exports the public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('exports the plugin factory by name and as default', async () => {
  const module = await import('./index.js');
  expect(module.default).toBe(module.precompact);
  expect(module.precompact.meta.name).toBe('@hookwise/hook-precompact');
  expect(module.precompact().definition.commands?.map((command) => command.name)).toEqual(['command activate', 'command deactivate', 'command list', 'intent select', 'intent clear', 'intent show']);
});

it('builds no zod schema at import (a hook call whose options were checked needs none); optionsSchema() builds its schema once', async () => {
  vi.resetModules();
  const calls: string[] = [];
  vi.doMock('zod/mini', async (importOriginal) => {
    const zod = await importOriginal<Record<string, unknown>>();
    // Every schema and check maker (lowercase functions; classes are capitalised).
    return Object.fromEntries(Object.entries(zod).map(([key, value]) => [key, typeof value === 'function' && /^[a-z_]/.test(key) ? (...args: unknown[]) => (calls.push(key), (value as (...args: unknown[]) => unknown)(...args)) : value]));
  });
  try {
    const module = await import('./index.js');
    expect(calls).toEqual([]);
    const schema = module.optionsSchema();
    expect(calls.length).toBeGreaterThan(0);
    const made = calls.length;
    expect(module.optionsSchema()).toBe(schema);
    expect(calls).toHaveLength(made);
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse({ budgetChars: 999 }).success).toBe(false);
  } finally {
    vi.doUnmock('zod/mini');
    vi.resetModules();
  }
});
