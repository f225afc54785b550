#!/usr/bin/env node
import { main } from '../dist/cli.js';

// process.exit, not exitCode: a plugin's engine may leave a timer or handle open.
process.exit(await main(process.argv.slice(2)));
