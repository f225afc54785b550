import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Unit tests of every package run against core's source (one module graph, so one tsyringe
 * copy, and no build needed between edits). Tests that must see what users get (core's DI
 * smoke test, the CLI end-to-end and consumer tests) import the built `dist` explicitly.
 */
export const coreSourceAlias = {
  // Subpaths first: an alias also matches `find/…`, so `@hookwise/core` would swallow them.
  '@hookwise/core/plugin': fileURLToPath(new URL('./packages/core/src/plugin-side.ts', import.meta.url)),
  '@hookwise/core/host': fileURLToPath(new URL('./packages/core/src/host.ts', import.meta.url)),
  '@hookwise/core/messages': fileURLToPath(new URL('./packages/core/src/messages.ts', import.meta.url)),
  '@hookwise/core/claude-code': fileURLToPath(new URL('./packages/core/src/claude-code.ts', import.meta.url)),
  '@hookwise/core/codex': fileURLToPath(new URL('./packages/core/src/codex.ts', import.meta.url)),
  '@hookwise/core/gemini': fileURLToPath(new URL('./packages/core/src/gemini.ts', import.meta.url)),
  '@hookwise/core/di': fileURLToPath(new URL('./packages/core/src/di.ts', import.meta.url)),
  '@hookwise/core/fs': fileURLToPath(new URL('./packages/core/src/fs.ts', import.meta.url)),
  '@hookwise/core/counting': fileURLToPath(new URL('./packages/core/src/counting.ts', import.meta.url)),
  '@hookwise/core/wire': fileURLToPath(new URL('./packages/core/src/wire.ts', import.meta.url)),
  '@hookwise/core/command-hook': fileURLToPath(new URL('./packages/core/src/command-hook.ts', import.meta.url)),
  '@hookwise/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
};

/** The CLI's entries from source, for packages whose code imports them (the command-hook kit). */
export const cliSourceAlias = {
  '@hookwise/cli/command-hook/runtime': fileURLToPath(new URL('./packages/cli/src/command-hook/runtime.ts', import.meta.url)),
  '@hookwise/cli/command-hook': fileURLToPath(new URL('./packages/cli/src/command-hook/index.ts', import.meta.url)),
  '@hookwise/cli': fileURLToPath(new URL('./packages/cli/src/index.ts', import.meta.url)),
};

/**
 * The config of a host package whose tests run the real plugins (from source too, so no build of
 * them is needed first) and end-to-end suites that start real hosts, registries or a second
 * Node: those run one file at a time on a 2-core machine.
 */
export function hostPackageConfig(name: string) {
  return defineConfig({
    resolve: {
      alias: {
        ...coreSourceAlias,
        '@hookwise/hook-prune': fileURLToPath(new URL('./packages/hook-prune/src/index.ts', import.meta.url)),
        '@hookwise/hook-precompact': fileURLToPath(new URL('./packages/hook-precompact/src/index.ts', import.meta.url)),
        '@hookwise/hook-suggest': fileURLToPath(new URL('./packages/hook-suggest/src/index.ts', import.meta.url)),
      },
    },
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 120_000,
      hookTimeout: 600_000,
      fileParallelism: false,
    },
  });
}
