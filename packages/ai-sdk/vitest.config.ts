import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { coreSourceAlias } from '../../vitest.shared.js';

export default defineConfig({
  resolve: {
    alias: {
      ...coreSourceAlias,
      // Unit tests with real plugins run them from source too, so no build of them is needed first.
      '@hookwise/hook-prune': fileURLToPath(new URL('../hook-prune/src/index.ts', import.meta.url)),
      '@hookwise/hook-precompact': fileURLToPath(new URL('../hook-precompact/src/index.ts', import.meta.url)),
      '@hookwise/hook-suggest': fileURLToPath(new URL('../hook-suggest/src/index.ts', import.meta.url)),
    },
  },
  test: {
    name: 'ai-sdk',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // The end-to-end suites start registries and a second Node: one file at a time on a 2-core machine.
    fileParallelism: false,
  },
});
