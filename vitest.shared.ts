import { fileURLToPath } from 'node:url';

/**
 * Unit tests of every package run against core's source (one module graph, so one tsyringe
 * copy, and no build needed between edits). Tests that must see what users get (core's DI
 * smoke test, the CLI end-to-end and consumer tests) import the built `dist` explicitly.
 */
export const coreSourceAlias = {
  '@hookwise/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
};
