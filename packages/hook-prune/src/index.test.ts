import { expect, it, vi } from 'vitest';

it('public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('builds no zod schema at import (a hook call whose options were checked needs none); prunePluginOptionsSchema() builds its schema once', async () => {
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
    const schema = module.prunePluginOptionsSchema();
    expect(calls.length).toBeGreaterThan(0);
    const made = calls.length;
    expect(module.prunePluginOptionsSchema()).toBe(schema);
    expect(calls).toHaveLength(made);
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse({ keepRecent: -1 }).success).toBe(false);
  } finally {
    vi.doUnmock('zod/mini');
    vi.resetModules();
  }
});
