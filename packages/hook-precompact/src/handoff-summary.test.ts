import { createCharsTokenCounter } from '@hookwise/core/host';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import { describe, expect, it } from 'vitest';
import { findJsonObject, summarizeHandoff } from './handoff-summary.js';

const options = { maxTokens: 500, maxCodeLines: 3, tokenCounter: defaultTokenCounter };

const researchOutput = [
  '## Search queries',
  '- grep -r "session" src/',
  '- glob **/*.auth.ts',
  '',
  'Let me look at the auth module first.',
  'Searching for token refresh handlers...',
  'Found 14 files matching "refresh".',
  '',
  '## Findings',
  '- The refresh token is stored in localStorage (src/auth/store.ts), which is an XSS risk',
  '- Session expiry is hard-coded to 15 minutes in src/auth/config.ts',
  '- The API already exposes POST /auth/refresh',
  '',
  'src/auth/store.ts:',
  '```ts',
  'export function saveToken(token: string) {',
  '  localStorage.setItem("refresh", token);',
  '  // …',
  '  return token;',
  '}',
  '```',
  '',
  'Quick fix:',
  '```sh',
  'npm i cookie',
  '```',
  '',
  '## Next steps',
  'Move the refresh token to an httpOnly cookie before the write phase.',
  '',
  'Decision: PROCEED',
].join('\n');

describe('summarizeHandoff on free text', () => {
  const summary = summarizeHandoff(
    {
      output: researchOutput,
      taskId: 'T-42',
      phase: 'research',
      request: JSON.stringify({
        task_id: 'ignored-because-payload-wins',
        phase: 'research',
        context: { feature: 'auth-refresh', spec_path: 'specs/auth/requirements.md' },
      }),
    },
    options,
  );

  it('carries task_id, feature and spec_path first, then phase and the decision', () => {
    expect(summary.text.split('\n').slice(0, 5)).toEqual([
      '- task_id: T-42',
      '- feature: auth-refresh',
      '- spec_path: specs/auth/requirements.md',
      '- phase: research',
      '- decision: PROCEED',
    ]);
    expect(summary.fields.decision).toBe('PROCEED');
    expect(summary.source).toBe('derived');
  });

  it('keeps findings and next steps as bullets', () => {
    expect(summary.text).toContain('- The refresh token is stored in localStorage (src/auth/store.ts), which is an XSS risk');
    expect(summary.text).toContain('- Move the refresh token to an httpOnly cookie before the write phase.');
    expect(summary.text.split('\n').every((line) => line.startsWith('- '))).toBe(true);
  });

  it('drops search queries and intermediate steps', () => {
    expect(summary.text).not.toMatch(/grep|glob|Let me|Searching|Found 14 files/);
  });

  it('replaces long code with its path, keeps a one-line command', () => {
    expect(summary.text).not.toContain('localStorage.setItem');
    expect(summary.text).toContain('- code: src/auth/store.ts (5 lines, not kept)');
    expect(summary.text).toContain('- Quick fix: `npm i cookie`');
    // "src/auth/store.ts:" only introduced the code block: no bullet of its own.
    expect(summary.text).not.toContain('- src/auth/store.ts:');
  });

  it('is much smaller than the output and within 500 tokens', () => {
    expect(summary.tokens).toBeLessThanOrEqual(500);
    expect(summary.tokens).toBe(defaultTokenCounter.count(summary.text));
  });
});

describe('summarizeHandoff limits', () => {
  it('holds a long derived summary to maxTokens, keeping actionable lines before other findings', () => {
    const filler = Array.from(
      { length: 300 },
      (_value, index) => `- Observation ${index}: the module layout looks conventional and needs nothing.`,
    );
    const output = [...filler, '- BLOCKER: the database migration must run before deploy', 'Decision: STOP'].join('\n');
    const summary = summarizeHandoff({ output, taskId: 'T-1' }, options);
    expect(summary.tokens).toBeLessThanOrEqual(500);
    expect(defaultTokenCounter.count(summary.text)).toBeLessThanOrEqual(500);
    expect(summary.text).toContain('BLOCKER: the database migration must run before deploy');
    expect(summary.text).toContain('- decision: STOP');
    expect(summary.dropped).toBeGreaterThan(200);
  });

  it('uses the engine token counter it is given', () => {
    const strict = summarizeHandoff(
      { output: 'a finding that is long enough to matter\n'.repeat(50) + 'another unique finding' },
      { ...options, maxTokens: 20, tokenCounter: createCharsTokenCounter(2) },
    );
    expect(createCharsTokenCounter(2).count(strict.text)).toBeLessThanOrEqual(20);
  });

  it('never exceeds the limit, even when the fields alone are longer', () => {
    const summary = summarizeHandoff({ output: `feature: ${'x'.repeat(5_000)}`, taskId: 'T' }, { ...options, maxTokens: 10 });
    expect(defaultTokenCounter.count(summary.text)).toBeLessThanOrEqual(10);
  });

  it('says so when there is nothing to hand over', () => {
    expect(summarizeHandoff({ output: '' }, options).text).toBe('- (the sub-agent returned nothing to hand over)');
  });
});

describe('a JSON context_summary from the sub-agent', () => {
  it('is used, held to the limit, and still carries the fields', () => {
    const response = {
      task_id: 'T-7',
      phase: 'write',
      status: 'complete',
      decision: 'CLARIFY',
      findings: { files_changed: ['src/a.ts'] },
      context_summary: Array.from({ length: 120 }, (_value, index) => `- point ${index} about the implemented change`).join('\n'),
    };
    const summary = summarizeHandoff({ output: `Here is my result:\n\`\`\`json\n${JSON.stringify(response, null, 2)}\n\`\`\`` }, options);
    expect(summary.source).toBe('context_summary');
    expect(summary.tokens).toBeLessThanOrEqual(500);
    expect(summary.text.startsWith('- task_id: T-7\n- phase: write\n- status: complete\n- decision: CLARIFY\n- point 0 about')).toBe(true);
    expect(summary.text).not.toContain('files_changed');
  });

  it('accepts a context_summary given as an array or object', () => {
    expect(summarizeHandoff({ output: JSON.stringify({ context_summary: ['one', 'two'] }) }, options).text).toBe('- one\n- two');
    expect(summarizeHandoff({ output: JSON.stringify({ context_summary: { next: 'write tests' } }) }, options).text).toBe(
      '- next: write tests',
    );
  });

  it('without context_summary, a protocol response gives its issues and findings, not its search data', () => {
    const output = JSON.stringify({
      task_id: 'T-9',
      decision: 'STOP',
      issues: ['spec contradicts API'],
      findings: { search_queries: ['grep x'], conflicts: ['two auth flows'] },
    });
    const summary = summarizeHandoff({ output }, options);
    expect(summary.text).toBe('- task_id: T-9\n- decision: STOP\n- issue: spec contradicts API\n- conflicts: two auth flows');
  });
});

describe('fields from other places', () => {
  it('takes what earlier hand-offs established when this one says nothing', () => {
    const summary = summarizeHandoff(
      { output: 'The tests pass.', remembered: { taskId: 'T-1', feature: 'billing', specPath: 'specs/billing.md' } },
      options,
    );
    expect(summary.text).toBe('- task_id: T-1\n- feature: billing\n- spec_path: specs/billing.md\n- The tests pass.');
  });

  it('reads text fields from the request and the output, and ignores "null"', () => {
    const summary = summarizeHandoff(
      { request: 'task_id: T-5\nfeature: search\nspec_path: null', output: '**Spec path**: specs/search.md\nAll good.' },
      options,
    );
    expect(summary.fields).toMatchObject({ taskId: 'T-5', feature: 'search', specPath: 'specs/search.md' });
  });

  it('a lower-case "stop" in prose is not a decision', () => {
    expect(summarizeHandoff({ output: 'We should stop using the old API.' }, options).fields.decision).toBeUndefined();
    expect(summarizeHandoff({ output: 'Recommendation: clarify the scope with the user.' }, options).fields.decision).toBe('CLARIFY');
  });
});

describe('findJsonObject', () => {
  it('finds JSON as the whole text, in a fence, or embedded in prose', () => {
    expect(findJsonObject('{"a":1}')).toEqual({ a: 1 });
    expect(findJsonObject('text\n```json\n{"b":2}\n```\nmore')).toEqual({ b: 2 });
    expect(findJsonObject('prose {"c": "with } brace"} after')).toEqual({ c: 'with } brace' });
    expect(findJsonObject('no json {here')).toBeUndefined();
    expect(findJsonObject('[1,2]')).toBeUndefined();
  });
});
