import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createHookwisePlugin } from './index.js';

it("the README's plugin file of your own is a plugin Cline loads", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toContain("export default createHookwisePlugin({ configFile: 'hookwise.config.json', hookTimeoutMs: 1000 });");
  const plugin = createHookwisePlugin({ configFile: 'hookwise.config.json', hookTimeoutMs: 1000 });
  expect(plugin.name).toBe('hookwise');
  expect(plugin.manifest.capabilities).toEqual(['hooks']);
  expect(Object.keys(plugin.hooks)).toEqual(expect.arrayContaining(['beforeModel', 'afterTool', 'beforeRun', 'onEvent']));
});
