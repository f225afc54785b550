import { defineConfig } from 'vitest/config';
import base, { BURST_SUITES } from './vitest.config.js';

// The process-level attack suites and the 300-call bursts: `test:burst`, a task of its own that
// turbo runs after every package's `test`, so their length never holds back another's results.
export default defineConfig({
  ...base,
  test: { ...base.test, name: 'adapter-claude-code:burst', include: BURST_SUITES, exclude: [], typecheck: { enabled: false } },
});
