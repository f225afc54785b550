import { createRequire } from 'node:module';
import type { HostSetup } from '@hookwise/cli';
import { runThroughBin } from '@hookwise/cli/command-hook';
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
  run: (args) => runThroughBin(binPath, args, createRequire(import.meta.url)),
};
export default setup;
