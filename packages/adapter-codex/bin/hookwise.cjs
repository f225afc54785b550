#!/usr/bin/env node
'use strict';
// Codex's hook command: `run <Event>` on every hook call (see @hookwise/cli/command-hook/bin).
// Codex runs hooks in the session's cwd and names no project variable: the payload's cwd it is.
require('../dist/command-hook-bin.cjs').runCommandHookBin({
  host: 'codex',
  dist: require('node:path').join(__dirname, '..', 'dist'),
  projectDirEnv: undefined,
});
