import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import { hostPackageConfig } from '../../vitest.shared.js';

// The OpenCode binding this package bundles, from source like core and the plugins. A Kilo run
// with an export took 25-100 s here depending on the machine's load: 5 minutes per test.
export default mergeConfig(hostPackageConfig('adapter-kilo'), {
  test: { testTimeout: 300_000 },
  resolve: {
    alias: {
      '@hookwise/adapter-opencode/binding': fileURLToPath(new URL('../adapter-opencode/src/binding.ts', import.meta.url)),
      '@hookwise/adapter-opencode/plugin-entry': fileURLToPath(new URL('../adapter-opencode/src/setup/plugin-entry.ts', import.meta.url)),
    },
  },
});
