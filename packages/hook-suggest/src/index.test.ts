import { expect, it } from 'vitest';

it('exports the public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('exports the plugin by name and as default', async () => {
  const module = await import('./index.js');
  expect(module.default).toBe(module.suggest);
  expect(module.suggest.meta.name).toBe('@hookwise/hook-suggest');
});
