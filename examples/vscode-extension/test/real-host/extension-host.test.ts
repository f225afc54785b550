import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, prepareRun, startCodeServer, type RunFolders, type RunningServer } from './harness.js';

/*
 * The extension-side suite (in-host/suite.ts) run INSIDE the real extension host, the way
 * @vscode/test-electron runs extension tests: the window is opened with
 * `extensionDevelopmentPath` (the installed extension's folder) and `extensionTestsPath`, and
 * reports the suite's result through `window.codeAutomationExit(code)`. The server's own log
 * says "exited with code 0" even when the suite fails: only that callback tells.
 */

let folders: RunFolders;
let server: RunningServer;
let browser: Browser;
const reportFile = () => path.join(folders.root, 'in-host-report.json');

beforeAll(async () => {
  folders = await prepareRun('eh', { installExtension: false });
  // Environment variables of the server reach the extension host, and so the suite.
  server = await startCodeServer(folders, { HOOKWISE_IN_HOST_REPORT: path.join(folders.root, 'in-host-report.json') });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the extension-side suite inside a real VS Code 1.100.3 extension host', () => {
  it('the next model request carries the intent summary, and the pruned messages keep every tool call paired', async () => {
    const page = await browser.newPage();
    let resolveExit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(code));

    const remote = (file: string) => `vscode-remote://127.0.0.1:${server.port}${file}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(inject('installedExtensionDir'))],
      ['extensionTestsPath', remote(inject('inHostSuite'))],
    ]);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(folders.workspace)}&payload=${encodeURIComponent(payload)}`);

    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the in-host suite did not report within 90 s; server log: ${server.logFile}`)), 90_000);
      }),
    ]).finally(() => clearTimeout(timer));
    const report = existsSync(reportFile()) ? (JSON.parse(readFileSync(reportFile(), 'utf8')) as Record<string, unknown>) : undefined;
    expect(report, 'the suite wrote its report').toBeDefined();
    expect(report!.error, 'the in-host suite failed').toBeUndefined();
    expect(code).toBe(0);
    expect(report!.checks).toEqual([
      'the system prompt of every model request carries the intent summary',
      'the pruned messages keep every tool call paired',
    ]);
    expect(report!.activatedBeforeTests, 'the workspace config activated the extension before the suite ran').toBe(true);
  }, 120_000);
});
