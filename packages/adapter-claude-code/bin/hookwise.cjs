#!/usr/bin/env node
'use strict';
// The `hookwise` command. `hookwise run <Event>` is on the path of every Claude Code hook call,
// so it stays CommonJS and small: read stdin once, find the project's cached bundle (see
// dist/bundle.js), check it is fresh with a few stat calls, and require it. Everything else
// (other commands, building a stale bundle, the unbundled fallback) loads the ESM CLI.
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const CONFIG_FILE_NAMES = ['hookwise.config.ts', 'hookwise.config.mts', 'hookwise.config.mjs', 'hookwise.config.js', 'hookwise.config.json'];
const MANIFEST_FORMAT = 1;
const dist = path.join(__dirname, '..', 'dist');

function readStdin() {
  try {
    return fs.readFileSync(0);
  } catch (error) {
    // EAGAIN: stdin is a non-blocking pipe or a terminal; EOF/closed stdin reads as empty.
    if (error && error.code === 'EAGAIN') return undefined;
    return Buffer.alloc(0);
  }
}

function projectDirOf(stdin) {
  if (process.env.CLAUDE_PROJECT_DIR) return path.resolve(process.env.CLAUDE_PROJECT_DIR);
  try {
    const cwd = JSON.parse(stdin.toString('utf8')).cwd;
    if (typeof cwd === 'string' && path.isAbsolute(cwd)) return cwd;
  } catch {
    // the run-time reports unparseable input
  }
  return process.cwd();
}

function freshBundle(projectDir, configFile) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(projectDir, '.hookwise', 'cache', 'run-bundle.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!manifest || manifest.format !== MANIFEST_FORMAT || !manifest.bundle) return undefined;
  if (manifest.node !== process.version || manifest.configFile !== configFile || manifest.runtime !== path.join(dist, 'runtime.js')) return undefined;
  for (const [file, mtimeMs, size] of manifest.watched) {
    let stats;
    try {
      stats = fs.statSync(file);
    } catch {
      return undefined;
    }
    if (stats.mtimeMs !== mtimeMs || stats.size !== size) return undefined;
  }
  return path.join(projectDir, '.hookwise', 'cache', manifest.bundle);
}

// Loads the bundle with a V8 code cache beside it: compiling ~0.5 MB of JavaScript is about a
// third of a hook call's start-up, and Node 20 has no built-in compile cache. The cache is
// written once, at exit of the first call, so it covers the functions a call actually ran;
// V8 rejects it by itself when Node or the bundle changed, and it is then written again.
function loadBundle(file) {
  const vm = require('node:vm');
  const Module = require('node:module');
  const code = fs.readFileSync(file, 'utf8');
  const cacheFile = file.replace(/\.cjs$/, '.v8cache');
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // no cache yet
  }
  const script = new vm.Script(Module.wrap(code), { filename: file, cachedData });
  const module = { exports: {}, filename: file, id: file };
  script.runInThisContext()(module.exports, Module.createRequire(file), module, file, path.dirname(file));
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
      } catch {
        // a missing cache only costs speed
      }
    });
  }
  return module.exports;
}

function runFast(event) {
  // Fail open: whatever escapes (a plugin's stray rejection included) ends the call as a no-op, never exit 2.
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  const stdin = readStdin();
  if (stdin === undefined) return false;
  const request = { event, stdin, env: process.env, cwd: process.cwd() };
  const projectDir = projectDirOf(stdin);
  const configFile = CONFIG_FILE_NAMES.map((name) => path.join(projectDir, name)).find((file) => fs.existsSync(file));
  // A project without hookwise (e.g. hooks installed in the user settings) costs nothing more.
  if (!configFile && process.env.HOOKWISE_NO_BUNDLE !== '1') process.exit(0);
  const bundle = configFile && process.env.HOOKWISE_NO_BUNDLE !== '1' ? freshBundle(projectDir, configFile) : undefined;
  if (bundle) {
    try {
      loadBundle(bundle).run(request);
      return true;
    } catch {
      // removed by a concurrent rebuild, or unloadable: the slow path rebuilds it
    }
  }
  import(pathToFileURL(path.join(dist, 'run-slow.js')).href)
    .then((module) => module.runSlow(request, { bundleFailed: Boolean(bundle) }))
    .catch(fail);
  return true;
}

function fail(error) {
  process.stderr.write(`hookwise: internal error, nothing done: ${error && error.message ? error.message : error}\n`);
  process.exit(0);
}

const args = process.argv.slice(2);
const wantsHelp = args.includes('--help') || args.includes('-h');
if (!(args[0] === 'run' && args.length === 2 && !wantsHelp && runFast(args[1]))) {
  import(pathToFileURL(path.join(dist, 'cli.js')).href).then(
    (module) => module.main(process.argv.slice(2)).then((code) => process.exit(code)),
    (error) => {
      process.stderr.write(`hookwise: could not start: ${error && error.message ? error.message : error}\n`);
      process.exit(1);
    },
  );
}
