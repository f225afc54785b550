import { expect, it } from 'vitest';

it('exports the extension as default and the names an extension file of your own needs', async () => {
  const module = (await import('./index.js')) as Record<string, unknown>;
  expect(Object.keys(module).sort()).toMatchSnapshot();
  expect(typeof module['default']).toBe('function');
});
