#!/usr/bin/env node
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
// process.exit, not exitCode: a plugin's engine may leave a timer or handle open. But only once
// stdout is flushed: into a pipe process.exit drops what the reader has not taken yet (a
// report's --json is hundreds of KB, and was cut at 64 KiB multiples).
process.stdout.write('', () => process.exit(code));
