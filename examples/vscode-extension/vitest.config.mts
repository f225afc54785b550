import { defineConfig } from 'vitest/config';

// No core source alias here: the test loads the bundled extension, as VS Code would.
export default defineConfig({ test: { name: 'example-vscode-extension', include: ['test/**/*.test.ts'], testTimeout: 120_000 } });
