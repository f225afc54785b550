import { adapterFiles } from '@hookwise/cli/command-hook';

/** This package's bin (the command Gemini's settings run) and the run-time its run bundle includes. */
export const { bin: binPath, runtime: runtimeFile } = adapterFiles(import.meta.url);
