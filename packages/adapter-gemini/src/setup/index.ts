import { createRequire } from 'node:module';
import type { HostSetup } from '@hookwise/cli';
import { binPath } from '../hook-process/package-files.js';
import { checkGeminiSetup } from './doctor.js';
import { planGeminiInit } from './init.js';

/** What `hookwise` (@hookwise/cli) does for Gemini CLI; package.json's `"hookwise"` field points the CLI here. */
const setup: HostSetup = {
  host: 'gemini',
  describe: 'Gemini CLI: one `hookwise run <Event>` command hook per needed event in .gemini/settings.json',
  initOptions: [
    { flags: '-s, --scope <scope>', description: 'which Gemini settings file to write', choices: ['project', 'user'], default: 'project' },
    { flags: '--command <prefix>', description: "command prefix the settings call (default: node and the path of this adapter's bin)" },
  ],
  init: planGeminiInit,
  doctor: checkGeminiSetup,
  // Settings written with `--command "npx hookwise"` reach the bin as if Gemini had called it; the bin ends the process.
  run: (args) => {
    process.argv = [process.argv[0]!, binPath(), 'run', ...args];
    createRequire(import.meta.url)(binPath());
    return new Promise<never>(() => undefined);
  },
};
export default setup;
