import { expect, it } from 'vitest';

it('exports the plugin as default and the names a plugin file of your own needs', async () => {
  const module = (await import('./index.js')) as Record<string, unknown>;
  expect(Object.keys(module).sort()).toMatchSnapshot();
  expect((module['default'] as { name?: unknown }).name).toBe('hookwise');
});
