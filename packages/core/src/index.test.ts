import { expect, it } from 'vitest';

it('keeps the public API stable', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});

it('keeps the main entry to what a plugin author and a config file need (at most 15 runtime names)', async () => {
  expect(Object.keys(await import('./index.js')).length).toBeLessThanOrEqual(15);
});

it.each(['plugin-side', 'host', 'messages', 'claude-code', 'codex', 'gemini', 'di', 'fs', 'counting', 'wire'])(
  'keeps the API of @hookwise/core/%s stable',
  async (entry) => {
    expect(Object.keys(await import(`./${entry}.js`)).sort()).toMatchSnapshot();
  },
);

it('gives each runtime name exactly one entry', async () => {
  const entries = ['index', 'plugin-side', 'host', 'messages', 'claude-code', 'codex', 'gemini', 'di', 'fs', 'counting', 'wire'];
  const names = (await Promise.all(entries.map(async (entry) => Object.keys(await import(`./${entry}.js`))))).flat();
  expect(names.length).toBeGreaterThan(60);
  expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
});
