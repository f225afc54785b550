#!/usr/bin/env node
'use strict';
// Claude Code's hook command: `run <Event>` on every hook call, the rest is @hookwise/cli's. The
// shared hook bin (@hookwise/cli/command-hook/bin) is copied into dist by the build: a relative
// require skips the exports-map resolution a package name costs on every call.
require('../dist/command-hook-bin.cjs').runCommandHookBin({
  host: 'claude-code',
  dist: require('node:path').join(__dirname, '..', 'dist'),
  projectDirEnv: 'CLAUDE_PROJECT_DIR',
});
