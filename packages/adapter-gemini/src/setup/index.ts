import { commandHookSetup } from '@hookwise/cli/command-hook';
import { files } from '../hook-process/package-files.js';
import { checkGeminiSetup } from './doctor.js';
import { planGeminiInit } from './init.js';

/** What `hookwise` (@hookwise/cli) does for Gemini CLI (see the kit's `commandHookSetup`). */
export default commandHookSetup(files, {
  host: 'gemini',
  describe: 'Gemini CLI: one `hookwise run <Event>` command hook per needed event in .gemini/settings.json',
  initOptions: [
    { flags: '-s, --scope <scope>', description: 'which Gemini settings file to write', choices: ['project', 'user'], default: 'project' },
  ],
  init: planGeminiInit,
  doctor: checkGeminiSetup,
});
