import { adapterFiles } from '@hookwise/cli/command-hook';

/** This package's folder, its bin (the command the host's hooks run) and the run-time its run bundle includes. */
export const files = adapterFiles(import.meta.url);
