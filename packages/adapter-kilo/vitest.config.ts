import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import { hostPackageConfig } from '../../vitest.shared.js';

// The OpenCode binding this package bundles, from source like core and the plugins.
export default mergeConfig(hostPackageConfig('adapter-kilo'), {
  resolve: {
    alias: {
      '@hookwise/adapter-opencode/binding': fileURLToPath(new URL('../adapter-opencode/src/binding.ts', import.meta.url)),
      '@hookwise/adapter-opencode/plugin-entry': fileURLToPath(new URL('../adapter-opencode/src/setup/plugin-entry.ts', import.meta.url)),
    },
  },
});
