import { runBuildOrLoad as runBuildOrLoadFor } from '@hookwise/cli/command-hook';
import type { RunRequest } from '@hookwise/core/command-hook';
import { geminiHost } from './hook-call.js';
import { files } from './package-files.js';

/** bin/hookwise.cjs's slow path (a missing or stale bundle): the command-hook kit's, for Gemini CLI. */
export const runBuildOrLoad = (request: RunRequest, options: { bundleFailed?: boolean } = {}): Promise<never> =>
  runBuildOrLoadFor({ host: geminiHost, runtime: files.runtime }, request, options);
