import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findConfigFile } from '@hookwise/core/host';
import { expect, it } from 'vitest';

// The CommonJS fast path cannot load core (an ESM graph would cost the start-up it exists to
// save), so it keeps a copy of the list of config file names: pinned here to core's lookup.
it('bin/command-hook.cjs looks for the config files core looks for, in the same order', () => {
  const text = readFileSync(new URL('../../bin/command-hook.cjs', import.meta.url), 'utf8');
  const list = /const CONFIG_FILE_NAMES = (\[[^\]]*\]);/.exec(text)?.[1];
  expect(list).toBeDefined();
  // As a JSON array: double quotes, no trailing comma (the formatter writes one).
  const names = JSON.parse(list!.replace(/'/g, '"').replace(/,\s*\]$/, ']')) as string[];
  const directory = mkdtempSync(path.join(tmpdir(), 'hookwise-names-'));
  try {
    for (const name of names) writeFileSync(path.join(directory, name), '');
    // With every file present core picks the first of the list; without it, the next; and so on.
    for (const name of names) {
      expect(findConfigFile(directory)).toBe(path.join(directory, name));
      rmSync(path.join(directory, name));
    }
    // Core knows no name the list lacks.
    for (const name of ['hookwise.config.cjs', 'hookwise.config.cts', 'hookwise.config.yaml'])
      writeFileSync(path.join(directory, name), '');
    expect(findConfigFile(directory)).toBeUndefined();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
