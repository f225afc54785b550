import { readFileSync } from 'node:fs';
import { CONFIG_FILE_NAMES } from '@hookwise/core';
import { expect, it } from 'vitest';

// The CommonJS fast path cannot load core (an ESM graph would cost the start-up it exists to
// save), so it keeps a copy of the list: pinned here to core's, the one source.
it('bin/hookwise.cjs looks for the config files core looks for, in the same order', () => {
  const text = readFileSync(new URL('../bin/hookwise.cjs', import.meta.url), 'utf8');
  const list = /const CONFIG_FILE_NAMES = (\[[^\]]*\]);/.exec(text)?.[1];
  expect(list).toBeDefined();
  expect(JSON.parse(list!.replace(/'/g, '"'))).toEqual([...CONFIG_FILE_NAMES]);
});
