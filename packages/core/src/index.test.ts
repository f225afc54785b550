import { expect, it } from 'vitest';

it('keeps the public API stable', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});
