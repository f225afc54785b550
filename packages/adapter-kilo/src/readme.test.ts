import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderKiloConfig } from './setup/kilo-config.js';

it("the README's kilo.jsonc example is what init writes: the entry added, the comments kept", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const [before, after] = [...readme.matchAll(/```jsonc\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const settings = {
    model: 'anthropic/claude-sonnet-4-5',
    plugin: ['./plugins/my-plugin.js', './node_modules/@hookwise/adapter-kilo'],
  };
  expect(renderKiloConfig(settings, before)).toBe(after);
});
