import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eligibleHistory, prompt, tokens, toolTurn } from './__fixtures__/history.js';
import { createPruner, pruneToolOutputs } from './index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('the per-session pruner example prunes a growing history as pruneToolOutputs does', () => {
    const block = /```js\n(import \{ createPruner \} from '@hookwise\/hook-prune';\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const body = block!.replace(/^import .*\n/, '');
    const beforeRequest = new Function('createPruner', `${body}\nreturn beforeRequest;`)(createPruner) as (history: unknown[]) => unknown[];
    let history = eligibleHistory([40_000, 25_000]);
    let changed = 0;
    // The same host with the one-shot function.
    let plainIds: string[] | undefined;
    for (let turn = 0; turn < 3; turn++) {
      history = [...history, ...toolTurn(tokens(30_000)), prompt(`u${turn}`)];
      const sent = beforeRequest(history);
      if (sent !== history) changed++;
      const plain = pruneToolOutputs(structuredClone(history), { previouslyPruned: plainIds });
      if (plain.decision === 'pruned') plainIds = plain.prunedIds;
      expect(JSON.stringify(sent)).toBe(JSON.stringify(plain.messages));
    }
    expect(changed).toBeGreaterThan(0);
  });
});
