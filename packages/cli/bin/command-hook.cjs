'use strict';
// The hook command of every command-hook host (Claude Code, Codex CLI, Gemini CLI). `run <Event>`
// is on the path of every hook call, so it stays CommonJS and small: read stdin once, find the
// project's cached bundle (see src/command-hook/bundle.ts), check it is fresh with a few stat
// calls, and require it. Building a stale bundle and the unbundled fallback load the adapter's
// dist/hook-process/; every other command is @hookwise/cli's (init, doctor, report, the plugins'
// commands). A command-hook adapter's build copies this file into its dist (tsup.shared.ts's
// copyCommandHookBin) and its bin is one call: `runCommandHookBin({ host, dist, projectDirEnv })`.
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const CONFIG_FILE_NAMES = [
  'hookwise.config.ts',
  'hookwise.config.mts',
  'hookwise.config.mjs',
  'hookwise.config.js',
  'hookwise.config.json',
];
const MANIFEST_FORMAT = 1;

function readStdin() {
  try {
    return fs.readFileSync(0);
  } catch (error) {
    // EAGAIN: stdin is a non-blocking pipe or a terminal; EOF/closed stdin reads as empty.
    if (error && error.code === 'EAGAIN') return undefined;
    return Buffer.alloc(0);
  }
}

function projectDirOf(stdin, projectDirEnv) {
  if (projectDirEnv && process.env[projectDirEnv]) return path.resolve(process.env[projectDirEnv]);
  try {
    const cwd = JSON.parse(stdin.toString('utf8')).cwd;
    if (typeof cwd === 'string' && path.isAbsolute(cwd)) return cwd;
  } catch {
    // the run-time reports unparseable input
  }
  return process.cwd();
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW || 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK || 0;
const BUNDLE_NAME = /^run-[0-9a-f]{16}\.cjs$/;

// Reads a regular file without following a link (O_NOFOLLOW + fstat): the cache lives under
// .hookwise/, which hookwise never trusts to be free of planted links (see core's safe-fs.ts).
function readOwnFile(file, encoding) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file`);
    return fs.readFileSync(fd, encoding);
  } finally {
    fs.closeSync(fd);
  }
}

// .hookwise and .hookwise/cache must be real folders: a linked .hookwise would make hookwise
// load and run code from wherever the link points. A link there sends the call to the slow
// path, which refuses it with one line naming the link.
function cacheDirOf(projectDir, host) {
  const hookwiseDir = path.join(projectDir, '.hookwise');
  const cacheDir = path.join(hookwiseDir, 'cache');
  const hostDir = path.join(cacheDir, host);
  try {
    if (!fs.lstatSync(hookwiseDir).isDirectory() || !fs.lstatSync(cacheDir).isDirectory() || !fs.lstatSync(hostDir).isDirectory())
      return undefined;
  } catch {
    return undefined;
  }
  return hostDir;
}

function freshBundle(projectDir, configFile, dist, host) {
  const cacheDir = cacheDirOf(projectDir, host);
  if (!cacheDir) return undefined;
  let manifest;
  try {
    manifest = JSON.parse(readOwnFile(path.join(cacheDir, 'run-bundle.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!manifest || manifest.format !== MANIFEST_FORMAT || typeof manifest.bundle !== 'string' || !BUNDLE_NAME.test(manifest.bundle))
    return undefined;
  if (
    manifest.node !== process.version ||
    manifest.configFile !== configFile ||
    manifest.runtime !== path.join(dist, 'hook-process', 'bundle-runtime.js')
  )
    return undefined;
  for (const [file, mtimeMs, size] of manifest.watched) {
    let stats;
    try {
      stats = fs.statSync(file);
    } catch {
      return undefined;
    }
    if (stats.mtimeMs !== mtimeMs || stats.size !== size) return undefined;
  }
  return path.join(cacheDir, manifest.bundle);
}

// Loads the bundle with a V8 code cache beside it: compiling the bundle is a large part of a
// hook call's start-up, and Node 20 has no built-in compile cache. The cache is
// written at exit of a call, so it covers the functions calls actually ran; V8 rejects it by
// itself when Node or the bundle changed, and it is then written again. Its first line names
// the events whose calls it covers: a call for an event not named there writes it again with
// that call's functions added (the first call after a build is often SessionStart, which runs
// little of what PostToolUse runs; without this every PostToolUse call would compile its own
// functions again). So a bundle's cache is written once per event, not once per call.
// The bundle's top level is hookwise's own code only: the config's modules (config, plugins,
// hook files) run later, under the call's deadline (see @hookwise/cli's src/command-hook/runtime.ts).
// The Module class, without loading the public node:module (slow to load): the same object.
const Module = module.constructor;

const CACHE_HEADER = 'hookwise-v8cache 1';
const CACHEABLE_EVENT = /^[A-Za-z]{1,64}$/;

function loadBundle(file, event) {
  const vm = require('node:vm');
  const code = readOwnFile(file, 'utf8');
  const cacheFile = file.replace(/\.cjs$/, '.v8cache');
  let cachedData;
  let covered = [];
  try {
    const bytes = readOwnFile(cacheFile);
    const newline = bytes.indexOf(0x0a);
    const header = newline > 0 && newline <= 1024 ? bytes.latin1Slice(0, newline).split(' ') : [];
    if (`${header[0]} ${header[1]}` === CACHE_HEADER) {
      covered = header.slice(2);
      cachedData = bytes.subarray(newline + 1);
    }
  } catch {
    // no cache yet
  }
  // Module.wrap's text, called at once (no regular expression over half a megabyte to strip its `;`).
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) { ${code}\n}).apply(this, globalThis[Symbol.for('hookwise.args')])`,
    { filename: file, cachedData },
  );
  const module = { exports: {}, filename: file, id: file };
  globalThis[Symbol.for('hookwise.args')] = [module.exports, Module.createRequire(file), module, file, path.dirname(file)];
  try {
    script.runInThisContext();
  } finally {
    delete globalThis[Symbol.for('hookwise.args')];
  }
  const accepted = cachedData !== undefined && !script.cachedDataRejected;
  const known = accepted ? covered : [];
  // Named events only, a bounded list: an unknown name on the command line cannot grow it.
  const newEvent = CACHEABLE_EVENT.test(event) && !known.includes(event) && known.length < 32;
  if (!accepted || newEvent) {
    const events = newEvent ? [...known, event] : known;
    process.once('exit', () => {
      // A new file (O_EXCL), never through a link planted under that name; rename replaces a link, never follows it.
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      try {
        const fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, 0o644);
        try {
          fs.writeFileSync(
            fd,
            Buffer.concat([Buffer.from(`${[CACHE_HEADER, ...events].join(' ')}\n`, 'latin1'), script.createCachedData()]),
          );
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(temporary, cacheFile);
      } catch {
        // A missing cache only costs speed. What is left under the temporary name (a failed
        // write, a leftover of a killed call with this pid, a planted link) goes, so the next call can write.
        try {
          fs.unlinkSync(temporary);
        } catch {
          // nothing there
        }
      }
    });
  }
  return module.exports;
}

// Plugin code must not be able to end the call with another exit code (2 means "block" to
// Claude Code, a denial to Gemini CLI) or end it before the result is printed: `process.exit` becomes a function that
// throws in its caller — a hook calling it fails and is named like any failing hook — and
// hookwise ends the process through the saved original, always with 0. Not guarded (said in
// the README): process.reallyExit, process.kill(process.pid, …), process.abort() and native code.
function guardExit() {
  const original = process.exit;
  globalThis[Symbol.for('hookwise.exit')] = (code) => original.call(process, code);
  process.exit = function exit(code) {
    throw new Error(
      `process.exit(${code === undefined ? '' : String(code)}) was called by plugin code; hookwise ignored it (a hook call always ends with exit 0)`,
    );
  };
}

// Nothing but the one result may reach fd 1. Where fd 1 can be reopened (a pipe, a file, a
// terminal), the real stdout is reopened as a new descriptor for the result and fd 1 itself is
// pointed at stderr, so direct writes (fs.writeSync(1)), child processes with inherited stdio
// and native code all land on stderr. Where it cannot (stdout is a socket, as with Node's
// child_process parents; no /dev/fd), fd 1 stays and the JavaScript ways to reach it are
// redirected instead: fs write calls with fd 1, and child processes started through
// child_process with stdout inherited (spawn, fork, exec, execFile, spawnSync; not
// execSync/execFileSync, which call Node's internal spawnSync directly).
function guardStdout() {
  const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND;
  let saved;
  try {
    saved = fs.openSync('/dev/fd/1', flags);
  } catch {
    redirectFd1InJavaScript();
    return 1;
  }
  try {
    fs.closeSync(1);
    let replacement;
    try {
      replacement = fs.openSync('/dev/fd/2', flags);
    } catch {
      // stderr cannot be reopened (a socket): fd 1 goes nowhere, and JavaScript writes to it
      // are still sent to stderr.
      replacement = fs.openSync('/dev/null', flags);
      redirectFd1InJavaScript();
    }
    if (replacement !== 1) fs.closeSync(replacement); // fd 1 was taken meanwhile: leave it
    return saved;
  } catch {
    return saved;
  }
}

function redirectFd1InJavaScript() {
  // hookwise's own result still goes to fd 1, through the original (see writeAllSync in @hookwise/core/command-hook).
  globalThis[Symbol.for('hookwise.writeSync')] = fs.writeSync;
  const toStderr = (fd) => (fd === 1 ? 2 : fd);
  for (const name of ['writeSync', 'write', 'writev', 'writevSync', 'fsyncSync']) {
    const original = fs[name];
    if (typeof original === 'function')
      fs[name] = function (fd, ...rest) {
        return original.call(this, toStderr(fd), ...rest);
      };
  }
  for (const name of ['writeFileSync', 'appendFileSync', 'writeFile', 'appendFile']) {
    const original = fs[name];
    if (typeof original === 'function')
      fs[name] = function (file, ...rest) {
        return original.call(this, file === 1 ? 2 : file, ...rest);
      };
  }
  const load = Module._load;
  let patched = false;
  Module._load = function (request, ...rest) {
    const loaded = load.call(this, request, ...rest);
    if (!patched && (request === 'child_process' || request === 'node:child_process')) {
      patched = true;
      patchChildProcess(loaded);
    }
    return loaded;
  };
}

function stdioWithoutStdout(stdio) {
  if (stdio === 'inherit') return ['inherit', 2, 'inherit'];
  if (!Array.isArray(stdio)) return stdio;
  return stdio.map((entry, index) => (index === 1 && (entry === 'inherit' || entry === 1) ? 2 : entry));
}

function patchChildProcess(childProcess) {
  const prototypeSpawn = childProcess.ChildProcess.prototype.spawn;
  childProcess.ChildProcess.prototype.spawn = function (options) {
    if (options && options.stdio !== undefined) options.stdio = stdioWithoutStdout(options.stdio);
    return prototypeSpawn.call(this, options);
  };
  const spawnSync = childProcess.spawnSync;
  childProcess.spawnSync = function (command, args, options) {
    if (args && !Array.isArray(args)) return spawnSync.call(this, command, { ...args, stdio: stdioWithoutStdout(args.stdio) });
    return spawnSync.call(this, command, args, options && { ...options, stdio: stdioWithoutStdout(options.stdio) });
  };
}

function runFast(event, dist, projectDirEnv, host) {
  // Fail open: whatever escapes before the run-time takes over ends the call as a no-op, never
  // exit 2. The run-time then switches what these listeners do through the slot (see
  // runHookProcess) rather than replacing them, which costs more.
  const escapedSlot = Symbol.for('hookwise.escaped');
  globalThis[escapedSlot] = fail;
  const escaped = (error) => globalThis[escapedSlot](error);
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);
  const stdin = readStdin();
  if (stdin === undefined) return false;
  guardExit();
  const stdoutFd = guardStdout();
  noResult.fd = stdoutFd;
  const request = { event, stdin, env: process.env, cwd: process.cwd(), stdoutFd };
  const projectDir = projectDirOf(stdin, projectDirEnv);
  const configFile = CONFIG_FILE_NAMES.map((name) => path.join(projectDir, name)).find((file) => fs.existsSync(file));
  // A project without hookwise (e.g. hooks installed in the user settings) costs nothing more.
  if (!configFile && process.env.HOOKWISE_NO_BUNDLE !== '1') exitWithoutResult();
  const bundle = configFile && process.env.HOOKWISE_NO_BUNDLE !== '1' ? freshBundle(projectDir, configFile, dist, host) : undefined;
  if (bundle) {
    let loaded;
    try {
      loaded = loadBundle(bundle, event);
    } catch {
      // removed by a concurrent rebuild, or unloadable: the slow path rebuilds it
    }
    if (loaded) {
      loaded.run(request);
      return true;
    }
  }
  import(pathToFileURL(path.join(dist, 'hook-process', 'build-or-load.js')).href)
    .then((module) => module.runBuildOrLoad(request, { bundleFailed: Boolean(bundle) }))
    .catch(fail);
  return true;
}

function exit(code) {
  const saved = globalThis[Symbol.for('hookwise.exit')];
  return typeof saved === 'function' ? saved(code) : process.exit(code);
}

/** What ends a call that has no result: the host's empty output (Gemini CLI: `{}`), where the result would go. */
const noResult = { text: '', fd: 1 };

function exitWithoutResult() {
  try {
    // The saved writeSync when fd 1 is a socket (Node's pipes) and JavaScript writes to it go to stderr.
    if (noResult.text) (globalThis[Symbol.for('hookwise.writeSync')] || fs.writeSync)(noResult.fd, noResult.text);
  } catch {
    // stdout closed: the host has gone
  }
  exit(0);
}

function fail(error) {
  process.stderr.write(`hookwise: internal error, nothing done: ${error && error.message ? error.message : error}\n`);
  exitWithoutResult();
}

/**
 * Runs the hook command: `run <Event>` through the project's run bundle (or the adapter's
 * `dist/hook-process/build-or-load.js`), anything else through @hookwise/cli.
 * `host`: the host's name (`CommandHookHost.name`; its bundle is in .hookwise/cache/<host>);
 * `dist`: the adapter's dist folder; `projectDirEnv`: the host's variable naming the project
 * (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`), else the payload's cwd, else the process's;
 * `emptyStdout`: what a call without a result prints (the host's `CommandHookHost.emptyStdout`).
 */
function runCommandHookBin({ host, dist, projectDirEnv, emptyStdout }) {
  noResult.text = emptyStdout || '';
  const args = process.argv.slice(2);
  const wantsHelp = args.includes('--help') || args.includes('-h');
  if (args[0] === 'run' && args.length === 2 && !wantsHelp && /^[a-z0-9-]{1,64}$/.test(host) && runFast(args[1], dist, projectDirEnv, host))
    return;
  const start =
    args[0] === 'run'
      ? import(pathToFileURL(path.join(dist, 'hook-process', 'run-command.js')).href).then((module) => module.runCommand(args))
      : import('@hookwise/cli').then((module) => module.main(args));
  start.then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`hookwise: could not start: ${error && error.message ? error.message : error}\n`);
      process.exit(1);
    },
  );
}

module.exports = { runCommandHookBin };
