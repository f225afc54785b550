import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extensionHostLogs,
  hostErrors,
  launchBrowser,
  outputChannelLog,
  prepareRun,
  runCommandFromPalette,
  startCodeServer,
  type RunFolders,
  type RunningServer,
} from './harness.js';

/*
 * The example extension installed in a real VS Code 1.100.3 (code-server 4.100.3), driven through
 * the workbench in headless Chromium as a user would: Command Palette, notifications, status bar,
 * Output view. One server and one page for the whole group; the checks build on each other.
 */

const EXTENSION_ID = 'hookwise-examples.@hookwise/example-vscode-extension';
const UI_TIMEOUT = 30_000;

let folders: RunFolders;
let server: RunningServer;
let browser: Browser;
let page: Page;

const toasts = () => page.locator('.notification-toast');
const toast = (text: string | RegExp) => toasts().filter({ hasText: text });
const statusItem = () => page.locator(`.statusbar-item[id="${EXTENSION_ID}.hookwise.status"]`);
/** Buttons of a notification, as labelled on screen. */
const buttonsOf = async (notification: Locator) =>
  (await notification.locator('.monaco-button').allTextContents()).map((label) => label.trim()).filter(Boolean);
/** The task id the example shows when its task answers ("Example task <id> (prompt N): …"). */
const taskIdOf = async (notification: Locator) =>
  /Example task ([0-9a-f-]{36}) \(prompt/.exec((await notification.textContent()) ?? '')?.[1];

async function waitForLog(pattern: RegExp): Promise<string> {
  await expect.poll(() => outputChannelLog(folders), { timeout: UI_TIMEOUT, interval: 200 }).toMatch(pattern);
  return outputChannelLog(folders);
}

beforeAll(async () => {
  folders = await prepareRun('wb', { installExtension: true });
  server = await startCodeServer(folders);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(UI_TIMEOUT);
  // Opening the workbench is what starts the extension host.
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folders.workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The text of the Output view's visible lines; Monaco renders spaces as no-break spaces. */
const outputViewText = async () => (await page.locator('.part.panel .output-view .view-lines').innerText()).replace(/\u00a0/g, ' ');

/** Waits until the locator matches `count` elements (Playwright's own expect is not vitest's). */
const count = (locator: Locator, expected: number) => expect.poll(() => locator.count(), { timeout: UI_TIMEOUT }).toBe(expected);
const statusText = async () => (await statusItem().textContent())?.trim();

describe('the example extension in a real VS Code 1.100.3 workbench', () => {
  let taskId: string | undefined;

  it('activates because the workspace has a hookwise config, before any command is run', async () => {
    await statusItem()
      .waitFor({ state: 'visible' })
      .catch((error: Error) => {
        // e.g. "Extension is not compatible with Code 1.100.3. Extension requires: ^1.140.0."
        throw new Error(`${error.message}\nerrors logged by VS Code:\n${hostErrors(folders) || '(none)'}`);
      });
    await expect
      .poll(() => extensionHostLogs(folders), { timeout: UI_TIMEOUT })
      .toMatch(
        new RegExp(
          `_doActivateExtension ${escape(EXTENSION_ID)}, startup: true, activationEvent: 'workspaceContains:hookwise\\.config\\.json'`,
        ),
      );
    expect(extensionHostLogs(folders)).not.toMatch(new RegExp(`_doActivateExtension ${escape(EXTENSION_ID)}.*onCommand`));
    expect(await statusText()).toBe('hookwise');
    const log = await waitForLog(/\[workspace\] loaded /);
    expect(log).toContain(
      `[workspace] loaded ${path.join(folders.workspace, 'hookwise.config.json')} (@hookwise/hook-suggest, @hookwise/hook-prune)`,
    );
  });

  it('runs the example task: the suggestion as a notification with its actions, the status bar, the output channel', async () => {
    await runCommandFromPalette(page, 'hookwise example: Run example task');
    const answer = toast(/Example task .* \(prompt 1\): Listed the workspace 3 times\./);
    await answer.waitFor({ state: 'visible' });
    taskId = await taskIdOf(answer);
    expect(taskId).toBeDefined();

    // hook-suggest's notice after the 3rd tool call, shown by the adapter with the plugin's actions.
    const suggestion = toast(/3 tool calls since the last compaction/);
    await count(suggestion, 1);
    expect(await buttonsOf(suggestion)).toEqual(['Compact now', 'Dismiss']);
    await expect.poll(statusText, { timeout: UI_TIMEOUT }).toMatch(/^\d+% · 3 tools$/);

    // The Output view shows the hookwise channel with what the task logged.
    await runCommandFromPalette(page, 'hookwise: Show log');
    // Room for the whole log so far (the Output view renders only the lines it shows).
    await runCommandFromPalette(page, 'View: Toggle Maximized Panel');
    await page.locator('.part.panel .output-view .view-lines').waitFor({ state: 'visible' });
    await expect.poll(outputViewText, { timeout: UI_TIMEOUT }).toContain(`Task#${taskId}`);
  });

  it('a hook that throws is logged with the task id and intent id, and the task goes on', async () => {
    // The flaky hook threw on the task's first model request; the task still answered: the id
    // comes from its answer, "Listed the workspace 3 times." (above).
    expect(taskId).toBeDefined();
    const failure = (text: string) =>
      text
        .split('\n')
        .find(
          (line) => line.includes(`Task#${taskId}`) && line.includes('EXAMPLE-INTENT-1') && line.includes('flaky hook failed on purpose'),
        );
    await expect.poll(() => failure(outputChannelLog(folders)), { timeout: UI_TIMEOUT }).toBeDefined();
    expect(failure(outputChannelLog(folders))).toMatch(/\[(error|warning)\]/);
    // The stack is there for whoever debugs the hook.
    expect(outputChannelLog(folders)).toMatch(/Error: flaky hook failed on purpose\n\s+at .*example-hooks\.mjs/);
    // What a user sees: the same line in the Output view.
    await expect.poll(async () => failure(await outputViewText()), { timeout: UI_TIMEOUT }).toBeDefined();
  });

  it("Dismiss runs the plugin's own dismiss command and quiets the suggestion", async () => {
    // Control: without a dismissal, three more tool calls bring the next suggestion.
    await runCommandFromPalette(page, 'hookwise example: Send a follow-up to the last task');
    await toast(`Example task ${taskId} (prompt 2): Listed the workspace 3 times.`).waitFor({ state: 'visible' });
    const second = toast(/6 tool calls since the last compaction/);
    await count(second, 1);

    await second.locator('.monaco-button', { hasText: /^Dismiss$/ }).click();
    await count(second, 0);
    // The adapter ran the command the plugin declared for the action (hook-suggest's dismiss), for this task.
    await waitForLog(new RegExp(`dismiss.*${taskId}|${taskId}.*dismiss`, 'i'));

    // Three more tool calls: the 9-call suggestion is due, but dismissed, so nothing is shown.
    await runCommandFromPalette(page, 'hookwise example: Send a follow-up to the last task');
    await toast(`Example task ${taskId} (prompt 3): Listed the workspace 3 times.`).waitFor({ state: 'visible' });
    expect(await statusText()).toMatch(/^\d+% · 9 tools$/);
    await count(toast(/9 tool calls since the last compaction/), 0);
    expect(outputChannelLog(folders)).not.toMatch(/9 tool calls since the last compaction/);
  });

  it("Compact now, the suggestion's other action, condenses the task through the extension", async () => {
    // Identical notifications are merged by VS Code: start from an empty notification area.
    await runCommandFromPalette(page, 'Notifications: Clear All Notifications');
    await count(toasts(), 0);
    await runCommandFromPalette(page, 'hookwise example: Run example task');
    const answer = toast(/Example task .* \(prompt 1\): Listed the workspace 3 times\./);
    await answer.waitFor({ state: 'visible' });
    const compactedTask = await taskIdOf(answer);
    expect(compactedTask).toBeDefined();
    expect(compactedTask).not.toBe(taskId);
    const suggestion = toast(/3 tool calls since the last compaction/);
    await count(suggestion, 1);

    await suggestion.locator('.monaco-button', { hasText: /^Compact now$/ }).click();
    await count(suggestion, 0);
    // The example's condense ran between compact:before and compact:after; hook-suggest reports the sizes.
    await waitForLog(new RegExp(`Task#${compactedTask}\\] compact:after: .*Context compacted \\(manual\\)`));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
