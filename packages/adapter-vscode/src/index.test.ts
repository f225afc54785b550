import { expect, it } from 'vitest';

it('keeps its public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toMatchSnapshot();
});
