import { commandHookSetup } from '@hookwise/cli/command-hook';
import { files } from '../hook-process/package-files.js';
import { checkCodexSetup } from './doctor.js';
import { planCodexInit } from './init.js';

/** What `hookwise` (@hookwise/cli) does for Codex (see the kit's `commandHookSetup`). */
export default commandHookSetup(files, {
  host: 'codex',
  describe: 'Codex CLI: one `hookwise run <Event>` command hook per needed event in .codex/hooks.json',
  init: planCodexInit,
  doctor: checkCodexSetup,
});
