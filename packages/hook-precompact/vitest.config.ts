import { defineConfig } from 'vitest/config';
import { coreSourceAlias } from '../../vitest.shared.js';

export default defineConfig({
  resolve: { alias: coreSourceAlias },
  test: { name: 'hook-precompact', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
