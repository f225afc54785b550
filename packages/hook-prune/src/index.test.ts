import { expect, it } from 'vitest';

it('public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});
