import { defineConfig } from 'vitest/config';

// No core source alias here: the tests load the bundled extension, as VS Code would.
export default defineConfig({
  test: {
    // One file at a time: the real-host groups each start a VS Code server and a browser
    // (about 0.4 GB and 0.7-1.3 GB) on machines with two cores.
    fileParallelism: false,
    projects: [
      {
        test: { name: 'example-vscode-extension', include: ['test/*.test.ts'], testTimeout: 120_000 },
      },
      {
        // A real VS Code 1.100.3 (code-server 4.100.3) and headless Chromium: see test/real-host/harness.ts.
        test: {
          name: 'real-host',
          include: ['test/real-host/*.test.ts'],
          globalSetup: ['test/real-host/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
