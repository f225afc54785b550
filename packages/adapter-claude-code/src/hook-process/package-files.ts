import { adapterFiles } from '@hookwise/cli/command-hook';

/** This package's folder, `bin/hookwise.cjs` (the command Claude Code's settings run) and the run-time its run bundle includes. */
export const files = adapterFiles(import.meta.url);
