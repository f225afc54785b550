import { defineConfig } from 'vitest/config';
import { cliSourceAlias, coreSourceAlias } from '../../vitest.shared.js';

/** Run by `test:burst` (vitest.burst.config.ts), after every package's `test`. */
export const BURST_SUITES = ['test/attack.*.test.ts', 'test/first-burst.test.ts'];

export default defineConfig({
  resolve: { alias: { ...coreSourceAlias, ...cliSourceAlias } },
  test: {
    name: 'adapter-claude-code',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...BURST_SUITES],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The process-level suites (Claude Code end to end, the consumer install) are heavy: one file at a time on a 2-core machine.
    fileParallelism: false,
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
