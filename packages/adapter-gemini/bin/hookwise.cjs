#!/usr/bin/env node
'use strict';
// Gemini CLI's hook command: `run <Event>` on every hook call (see @hookwise/cli/command-hook/bin).
require('../dist/command-hook-bin.cjs').runCommandHookBin({
  host: 'gemini',
  dist: require('node:path').join(__dirname, '..', 'dist'),
  projectDirEnv: 'GEMINI_PROJECT_DIR',
  emptyStdout: '{}', // Gemini reads stderr when stdout is empty: hookwise's lines there must never be output
});
