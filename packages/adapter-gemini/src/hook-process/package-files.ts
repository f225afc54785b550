import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Modules sit at dist/ and dist/<folder>/: the package root is the folder above dist.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = (): string => (path.basename(here) === 'dist' ? path.dirname(here) : path.resolve(here, '..', '..'));

/** `bin/hookwise.cjs`: the command Gemini's settings run. */
export const binPath = (): string => path.join(root(), 'bin', 'hookwise.cjs');

/** The run-time the per-project bundle includes; the manifest records this path and the bin checks it. */
export const runtimeFile = (): string => path.join(root(), 'dist', 'hook-process', 'bundle-runtime.js');
