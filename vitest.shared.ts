import { fileURLToPath } from 'node:url';

/**
 * Unit tests of every package run against core's source (one module graph, so one tsyringe
 * copy, and no build needed between edits). Tests that must see what users get (core's DI
 * smoke test, the CLI end-to-end and consumer tests) import the built `dist` explicitly.
 */
export const coreSourceAlias = {
  // Subpaths first: an alias also matches `find/…`, so `@hookwise/core` would swallow them.
  '@hookwise/core/host': fileURLToPath(new URL('./packages/core/src/host.ts', import.meta.url)),
  '@hookwise/core/messages': fileURLToPath(new URL('./packages/core/src/messages.ts', import.meta.url)),
  '@hookwise/core/claude-code': fileURLToPath(new URL('./packages/core/src/claude-code.ts', import.meta.url)),
  '@hookwise/core/di': fileURLToPath(new URL('./packages/core/src/di.ts', import.meta.url)),
  '@hookwise/core/fs': fileURLToPath(new URL('./packages/core/src/fs.ts', import.meta.url)),
  '@hookwise/core/counting': fileURLToPath(new URL('./packages/core/src/counting.ts', import.meta.url)),
  '@hookwise/core/wire': fileURLToPath(new URL('./packages/core/src/wire.ts', import.meta.url)),
  '@hookwise/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
};
