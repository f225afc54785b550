import { defineConfig } from 'vitest/config';
import { cliSourceAlias, coreSourceAlias } from '../../vitest.shared.js';

export default defineConfig({
  resolve: { alias: { ...coreSourceAlias, ...cliSourceAlias } },
  test: {
    name: 'adapter-gemini',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    // The real Gemini CLI runs are heavy: one file at a time on a 2-core machine.
    fileParallelism: false,
  },
});
