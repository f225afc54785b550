import { expect, it } from 'vitest';

it('exports the public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('exports the plugin factory by name and as default', async () => {
  const module = await import('./index.js');
  expect(module.default).toBe(module.precompact);
  expect(module.precompact.meta.name).toBe('@hookwise/hook-precompact');
  expect(module.precompact().definition.commands?.map((command) => command.name)).toEqual(['command activate', 'command deactivate', 'command list', 'intent select', 'intent clear', 'intent show']);
});
