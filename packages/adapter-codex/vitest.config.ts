import { defineConfig } from 'vitest/config';
import { cliSourceAlias, coreSourceAlias } from '../../vitest.shared.js';

export default defineConfig({
  resolve: { alias: { ...coreSourceAlias, ...cliSourceAlias } },
  test: {
    name: 'adapter-codex',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // The real-Codex suite is heavy: one file at a time on a 2-core machine.
    fileParallelism: false,
  },
});
