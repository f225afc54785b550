import { expect, it } from 'vitest';

it('exports only plugin functions (OpenCode refuses a module with any other export)', async () => {
  const module = (await import('./index.js')) as Record<string, unknown>;
  expect(Object.keys(module).sort()).toMatchSnapshot();
  for (const value of Object.values(module)) expect(typeof value).toBe('function');
});

it('the binding subpath, which @hookwise/adapter-kilo builds on, exports the hooks factory and the host name', async () => {
  const module = (await import('./binding.js')) as Record<string, unknown>;
  expect(Object.keys(module).sort()).toMatchSnapshot();
});

it('the plugin-entry subpath, which @hookwise/adapter-kilo builds on, exports init and doctor of a plugin list entry', async () => {
  const module = (await import('./setup/plugin-entry.js')) as Record<string, unknown>;
  expect(Object.keys(module).sort()).toMatchSnapshot();
});
