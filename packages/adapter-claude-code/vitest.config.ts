import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { coreSourceAlias } from '../../vitest.shared.js';

/** Run by `test:burst` (vitest.burst.config.ts), after every package's `test`. */
export const BURST_SUITES = ['test/attack.*.test.ts', 'test/first-burst.test.ts'];

export default defineConfig({
  resolve: {
    alias: {
      ...coreSourceAlias,
      // Subpaths first: an alias also matches `find/…`.
      '@hookwise/cli/command-hook/runtime': fileURLToPath(new URL('../cli/src/command-hook/runtime.ts', import.meta.url)),
      '@hookwise/cli/command-hook': fileURLToPath(new URL('../cli/src/command-hook/index.ts', import.meta.url)),
      '@hookwise/cli': fileURLToPath(new URL('../cli/src/index.ts', import.meta.url)),
    },
  },
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
