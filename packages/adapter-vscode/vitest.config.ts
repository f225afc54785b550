import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { coreSourceAlias } from '../../vitest.shared.js';

export default defineConfig({
  resolve: {
    alias: {
      ...coreSourceAlias,
      // Tests with real plugins run them from source too, so no build of them is needed first.
      '@hookwise/hook-prune': fileURLToPath(new URL('../hook-prune/src/index.ts', import.meta.url)),
      '@hookwise/hook-suggest': fileURLToPath(new URL('../hook-suggest/src/index.ts', import.meta.url)),
    },
  },
  test: { name: 'adapter-vscode', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
