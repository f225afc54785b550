import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { mergeGeminiHooks } from './index.js';

it("the README's settings block is what init writes for BeforeAgent", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```json\n([\s\S]*?)```/.exec(readme)![1]!;
  const { settings } = mergeGeminiHooks(
    {},
    ['BeforeAgent'],
    (event) => `node $GEMINI_PROJECT_DIR/node_modules/@hookwise/adapter-gemini/bin/hookwise.cjs run ${event}`,
  );
  expect(JSON.parse(block)).toEqual(settings);
});
