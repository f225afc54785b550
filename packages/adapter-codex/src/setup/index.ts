import { createRequire } from 'node:module';
import type { HostSetup } from '@hookwise/cli';
import { runThroughBin } from '@hookwise/cli/command-hook';
import { binPath } from '../hook-process/package-files.js';
import { checkCodexSetup } from './doctor.js';
import { planCodexInit } from './init.js';

/** What `hookwise` (@hookwise/cli) does for Codex; package.json's `"hookwise"` field points the CLI here. */
const setup: HostSetup = {
  host: 'codex',
  describe: 'Codex CLI: one `hookwise run <Event>` command hook per needed event in .codex/hooks.json',
  initOptions: [
    {
      flags: '--command <prefix>',
      description: 'command prefix the hooks call, e.g. "npx hookwise-codex" (default: node and the path of this bin)',
    },
  ],
  init: planCodexInit,
  doctor: checkCodexSetup,
  run: (args) => runThroughBin(binPath, args, createRequire(import.meta.url)),
};

export default setup;
