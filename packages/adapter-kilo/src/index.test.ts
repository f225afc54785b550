import { expect, it } from 'vitest';

it('exports only plugin functions (Kilo loads every export of the entry as a plugin)', async () => {
  const module = (await import('./index.js')) as Record<string, unknown>;
  expect(Object.keys(module).sort()).toMatchSnapshot();
  for (const value of Object.values(module)) expect(typeof value).toBe('function');
});
