import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';

/*
 * A real VS Code (code-server 4.100.3 = VS Code 1.100.3) driven by headless Chromium. The global
 * setup installed code-server, built the extension, unpacked it as a user's install would be and
 * prepared a workspace with the packed hookwise packages; each scenario group gets copies of those
 * in a scratch folder, its own server (in its own process group) and its own browser.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    codeServerDir: string;
    /** The extension as installed: an unpacked folder named `<publisher>.<name>-<version>`. */
    installedExtensionDir: string;
    /** A workspace with hookwise.config.json and the packed hookwise packages installed by npm. */
    workspaceTemplate: string;
    /** The in-host test suite, bundled (CommonJS), for `extensionTestsPath`. */
    inHostSuite: string;
    /** Where each run keeps its folders (removed by the global teardown unless KEEP_REAL_HOST=1). */
    scratchRoot: string;
  }
}

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

/** Settings that keep the editor from writing files or showing a start page during a test. */
const USER_SETTINGS = {
  'files.autoSave': 'off',
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'git.enabled': false,
  // Long log lines stay on one row of the Output view, so the DOM holds whole lines. The
  // Output view reads its overrides from '[Log]', capital L; '[log]' is not applied.
  '[Log]': { 'editor.wordWrap': 'off' },
};

export interface RunFolders {
  root: string;
  workspace: string;
  userData: string;
  extensions: string;
  tmp: string;
}

/** A scratch folder for one scenario group: its own workspace copy, user data, extensions and TMPDIR. */
export async function prepareRun(name: string, options: { installExtension: boolean }): Promise<RunFolders> {
  const root = path.join(inject('scratchRoot'), `${name}-${process.pid}`);
  await rm(root, { recursive: true, force: true });
  const folders: RunFolders = {
    root,
    workspace: path.join(root, 'workspace'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    tmp: path.join(root, 'tmp'),
  };
  await cp(inject('workspaceTemplate'), folders.workspace, { recursive: true, verbatimSymlinks: true });
  await mkdir(path.join(folders.userData, 'User'), { recursive: true });
  await writeFile(path.join(folders.userData, 'User', 'settings.json'), `${JSON.stringify(USER_SETTINGS, null, 2)}\n`);
  await mkdir(folders.extensions, { recursive: true });
  await mkdir(folders.tmp, { recursive: true });
  if (options.installExtension) {
    // What installing the .vsix does: the extension's folder in the extensions directory.
    const installed = inject('installedExtensionDir');
    await cp(installed, path.join(folders.extensions, path.basename(installed)), { recursive: true });
  }
  return folders;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningServer {
  port: number;
  url: string;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts code-server on 127.0.0.1 in its own process group (it forks the extension host and
 * more), and waits until it answers. `stop()` ends the whole group.
 */
export async function startCodeServer(folders: RunFolders, env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const configFile = path.join(folders.root, 'code-server.yaml');
  await writeFile(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const logFile = path.join(folders.root, 'code-server.log');
  const log = createWriteStream(logFile);
  const entry = path.join(inject('codeServerDir'), 'out', 'node', 'entry.js');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      entry,
      '--config',
      configFile,
      '--user-data-dir',
      folders.userData,
      '--extensions-dir',
      folders.extensions,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      folders.workspace,
    ],
    {
      detached: true, // its own process group, ended as a whole in stop()
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // The server leaves vscode-ipc-*.sock files in TMPDIR and its own files under XDG_*.
        TMPDIR: folders.tmp,
        XDG_DATA_HOME: path.join(folders.root, 'xdg-data'),
        XDG_CONFIG_HOME: path.join(folders.root, 'xdg-config'),
        ...env,
      },
    },
  );
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `code-server exited (${code ?? signal}) before the test ended; see ${logFile}`;
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5_000);
      await gone;
      clearTimeout(timer);
    }
    // The extension host can outlive the server's main process for a moment: end the group for good.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // nothing left
    }
    log.end();
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(exited);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer within 60 s; see ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { port, url, logFile, stop };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (.ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Runs a command from the Command Palette (F1), by its title as the palette shows it. */
export async function runCommandFromPalette(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible' });
  // The list filters as it is typed: wait until the first row is the command asked for.
  await page.waitForFunction(
    (wanted) => document.querySelector('.quick-input-list .monaco-list-row.focused')?.textContent?.includes(wanted) ?? false,
    title,
  );
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
}

/** The extension host's own logs of this run (every window the server opened). */
export function extensionHostLogs(folders: RunFolders): string {
  return readLogs(folders, (file) => /^(remote)?exthost\.log$/.test(path.basename(file)));
}

/** Error lines of every log of this run (server, extension host, window): what to read when a check times out. */
export function hostErrors(folders: RunFolders): string {
  return readLogs(folders, (file) => file.endsWith('.log'))
    .split('\n')
    .filter((line) => line.includes('[error]'))
    .join('\n');
}

/** What the extension wrote to its `hookwise` log output channel: VS Code keeps it in this file. */
export function outputChannelLog(folders: RunFolders): string {
  return readLogs(folders, (file) => path.basename(file) === 'hookwise.log');
}

function readLogs(folders: RunFolders, wanted: (file: string) => boolean): string {
  const logsDir = path.join(folders.userData, 'logs');
  if (!existsSync(logsDir)) return '';
  return readdirSync(logsDir, { recursive: true, encoding: 'utf8' })
    .map((relative) => path.join(logsDir, relative))
    .filter(wanted)
    .sort()
    .map((file) => readFileSync(file, 'utf8'))
    .join('');
}
