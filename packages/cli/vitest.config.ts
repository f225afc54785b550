import { defineConfig } from 'vitest/config';
import { coreSourceAlias } from '../../vitest.shared.js';

export default defineConfig({
  resolve: { alias: coreSourceAlias },
  test: {
    name: 'cli',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
