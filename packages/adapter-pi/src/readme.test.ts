import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createHookwiseExtension } from './index.js';

it("the README's extension file registers hookwise on pi's events", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toContain("export default createHookwiseExtension({ configFile: 'hookwise.config.json', notify: true });");
  const events: string[] = [];
  const extension = createHookwiseExtension({ configFile: 'hookwise.config.json', notify: true });
  extension({ on: (event) => void events.push(event) });
  expect(events).toEqual(
    expect.arrayContaining([
      'context',
      'context_with_system',
      'before_agent_start',
      'tool_call',
      'tool_result',
      'session_before_compact',
      'session_compact',
      'agent_settled',
    ]),
  );
});
