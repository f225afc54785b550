import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { definePlugin, type HookwiseConfig } from '@hookwise/core';
import type { LoadedConfig } from '@hookwise/core/host';
import { suggest } from '@hookwise/hook-suggest';
import type * as vscode from 'vscode';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeVscode, fakeWorkspaceFolder, type FakeVscode } from './__fixtures__/fake-vscode.js';
import { activateHookwise, HOOKWISE_COMMANDS, type ActivateHookwiseOptions } from './activate.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'hookwise-vscode-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function folder(name: string): Promise<vscode.WorkspaceFolder> {
  const directory = path.join(root, name);
  await mkdir(directory, { recursive: true });
  return fakeWorkspaceFolder(directory);
}

/** A loader giving every folder the same in-code config, as if it had a hookwise.config.mjs. */
const configLoader =
  (config: HookwiseConfig) =>
  async (projectDir: string): Promise<LoadedConfig> => ({ config, file: path.join(projectDir, 'hookwise.config.mjs') });

/** Stands in for @hookwise/hook-suggest: a notice on the 2nd tool call offering compaction and its own `suggest dismiss` command. */
function suggestLike(dismissed: string[]) {
  let calls = 0;
  return definePlugin({
    meta: { name: 'suggest-like', version: '0.0.0' },
    on: {
      'tool:after': () =>
        ++calls === 2
          ? {
              notice: {
                text: '2 tool calls: consider compacting.',
                about: ['tool-calls'],
                actions: [
                  { label: 'Compact now', hostAction: 'compact' as const },
                  { label: 'Dismiss', command: 'suggest dismiss' },
                ],
              },
            }
          : undefined,
    },
    commands: [
      {
        name: 'suggest dismiss',
        description: 'stop suggesting in this session',
        run: (_args, context) => {
          dismissed.push(context.sessionId);
          return 'Suggestions dismissed for this session.';
        },
      },
    ],
  })();
}

async function start(fake: FakeVscode, options: Omit<ActivateHookwiseOptions, 'vscode'> = {}) {
  const context = { subscriptions: [] as Array<{ dispose(): unknown }> };
  const extension = await activateHookwise(context, { vscode: fake.api, ...options });
  return { context, extension };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('activateHookwise', () => {
  it('loads hookwise.config.* from the workspace folder and keeps state in its .hookwise/', async () => {
    const configured = await folder('configured');
    await writeFile(path.join(configured.uri.fsPath, 'hookwise.config.json'), JSON.stringify({ logLevel: 'debug' }));
    const plain = await folder('plain');
    const fake = createFakeVscode({ folders: [configured, plain] });
    const { extension } = await start(fake);

    expect(extension.engineFor(configured.uri.fsPath)?.projectDir).toBe(configured.uri.fsPath);
    expect(extension.engineFor(path.join(configured.uri.fsPath, 'src'))).toBe(extension.engineFor(configured.uri.fsPath));
    expect(extension.engineFor(plain.uri.fsPath)).toBeUndefined();
    expect(extension.createTaskBinding({ cwd: plain.uri.fsPath }).enabled).toBe(false);

    await extension.createTaskBinding({ cwd: configured.uri.fsPath }).taskStarted({ taskId: 'task-1' });
    expect(existsSync(path.join(configured.uri.fsPath, '.hookwise'))).toBe(true);
    expect(existsSync(path.join(plain.uri.fsPath, '.hookwise'))).toBe(false);
    expect(fake.channels[0]!.lines.join('\n')).toContain(`[configured] loaded ${path.join(configured.uri.fsPath, 'hookwise.config.json')}`);
    await extension.dispose();
  });

  it('reports a broken config without throwing, and that folder runs without hooks', async () => {
    const broken = await folder('broken');
    await writeFile(path.join(broken.uri.fsPath, 'hookwise.config.json'), '{ "plugins": ');
    const fake = createFakeVscode({ folders: [broken] });
    const { extension } = await start(fake);
    expect(extension.engineFor(broken.uri.fsPath)).toBeUndefined();
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]).toMatchObject({ level: 'warning', items: ['Show log'] });
    expect(fake.channels[0]!.lines.join('\n')).toMatch(
      /\[error\] \[broken\] the hookwise config of .* could not be loaded; hookwise is off for this folder.*not valid JSON/,
    );
    fake.messages[0]!.answer('Show log');
    await flush();
    expect(fake.channels[0]!.shown).toBe(1);
    await extension.dispose();
  });

  it('registers the commands, and hookwise.showLog shows the output channel', async () => {
    const fake = createFakeVscode({ folders: [await folder('a')] });
    const { extension } = await start(fake, { loadConfig: configLoader({}) });
    expect([...fake.commands.keys()].sort()).toEqual(
      [HOOKWISE_COMMANDS.compactNow, HOOKWISE_COMMANDS.dismissSuggestion, HOOKWISE_COMMANDS.showLog].sort(),
    );
    await fake.executeCommand(HOOKWISE_COMMANDS.showLog);
    expect(fake.channels[0]!.name).toBe('hookwise');
    expect(fake.channels[0]!.shown).toBe(1);
    await extension.dispose();
  });

  it('shows context usage and tool calls in the status bar as the task runs', async () => {
    const workspace = await folder('a');
    const fake = createFakeVscode({ folders: [workspace] });
    const { extension } = await start(fake, { loadConfig: configLoader({}) });
    const item = fake.statusItems[0]!;
    expect(item.visible).toBe(true);
    expect(item.text).toBe('$(pulse) hookwise');
    expect(item.command).toBe(HOOKWISE_COMMANDS.showLog);

    const binding = extension.createTaskBinding({ cwd: workspace.uri.fsPath });
    await binding.taskStarted({ taskId: 'task-1' });
    await binding.afterToolUse({ taskId: 'task-1', toolName: 'read_file', input: {}, output: 'x', ok: true });
    expect(item.text).toBe('$(pulse) 1 tool');
    await binding.beforeModelRequest({
      taskId: 'task-1',
      systemPrompt: 'P',
      messages: [],
      model: 'm',
      contextTokens: 124_000,
      contextWindow: 200_000,
    });
    await binding.afterToolUse({ taskId: 'task-1', toolName: 'write_to_file', input: {}, output: 'x', ok: true });
    expect(item.text).toBe('$(pulse) 62% · 2 tools');
    expect(item.tooltip).toContain('Context: 124,000 of 200,000 tokens (62%)');
    expect(item.tooltip).toContain('Tool calls: 2');
    expect(extension.activeTaskId).toBe('task-1');

    await binding.taskEnded({ taskId: 'task-1' });
    expect(item.text).toBe('$(pulse) hookwise');
    await extension.dispose();
  });

  it('hides the status bar when no folder has hookwise configured', async () => {
    const fake = createFakeVscode({ folders: [await folder('a')] });
    const { extension } = await start(fake);
    expect(fake.statusItems[0]!.visible).toBe(false);
    await extension.dispose();
  });

  it('turns tool:after notices into non-modal notifications: "Compact now" compacts, "Dismiss" runs suggest dismiss', async () => {
    const workspace = await folder('a');
    const dismissed: string[] = [];
    const compact = vi.fn();
    const fake = createFakeVscode({ folders: [workspace] });
    const { extension } = await start(fake, { loadConfig: configLoader({ plugins: [suggestLike(dismissed)] }), compact });
    const binding = extension.createTaskBinding({ cwd: workspace.uri.fsPath });
    await binding.taskStarted({ taskId: 'task-1' });
    const tool = { taskId: 'task-1', toolName: 'read_file', input: {}, output: '', ok: true };
    await binding.afterToolUse(tool);
    expect(fake.messages).toHaveLength(0);
    await binding.afterToolUse(tool);
    expect(fake.messages).toHaveLength(1);
    // Non-modal: the buttons come straight after the text, with no `{ modal: true }` options.
    // The text is the engine's host-neutral wording: the statement, then its offers.
    expect(fake.messages[0]).toMatchObject({
      level: 'info',
      message: 'hookwise: 2 tool calls: consider compacting. Consider compacting the context now. (hookwise suggest dismiss)',
      items: ['Compact now', 'Dismiss'],
    });
    fake.messages[0]!.answer('Compact now');
    await flush();
    expect(compact).toHaveBeenCalledWith('task-1');
    expect(dismissed).toEqual([]);

    // Later calls bring no new notice from the counter, so no new notification.
    await binding.afterToolUse(tool);
    expect(fake.messages).toHaveLength(1);
    await extension.dispose();
  });

  it('"Dismiss" on a suggestion runs the plugin command for that task; "Compact now" is left out when the extension cannot compact', async () => {
    const workspace = await folder('a');
    const dismissed: string[] = [];
    const fake = createFakeVscode({ folders: [workspace] });
    const { extension } = await start(fake, { loadConfig: configLoader({ plugins: [suggestLike(dismissed)] }) });
    const binding = extension.createTaskBinding({ cwd: workspace.uri.fsPath });
    const tool = { taskId: 'task-7', toolName: 'read_file', input: {}, output: '', ok: true };
    await binding.afterToolUse(tool);
    await binding.afterToolUse(tool);
    expect(fake.messages[0]).toMatchObject({ items: ['Dismiss'] });
    fake.messages[0]!.answer('Dismiss');
    await flush();
    expect(dismissed).toEqual(['task-7']);
    expect(fake.messages).toHaveLength(1); // quiet: no second message for a button click
    await extension.dispose();
  });

  // Context at 75 % from the first call: the 70 % band is suggested at once, tool-call
  // suggestions are due at 2 and 4. "Dismiss" quiets both until the 80 % band.
  it.each([
    ['left alone', undefined, [1, 2, 4]],
    ['dismissed', 'Dismiss', [1]],
  ] as const)('works with the real @hookwise/hook-suggest: a suggestion %s', async (_label, answer, suggestedAt) => {
    const workspace = await folder('a');
    const fake = createFakeVscode({ folders: [workspace] });
    const { extension } = await start(fake, {
      loadConfig: configLoader({ plugins: [suggest({ toolCalls: 2, toolCallStep: 2 })] }),
      compact: vi.fn(),
    });
    const binding = extension.createTaskBinding({ cwd: workspace.uri.fsPath });
    await binding.taskStarted({ taskId: 'task-s' });
    const shownAt: number[] = [];
    for (let call = 1; call <= 4; call++) {
      const before = fake.messages.length;
      await binding.afterToolUse({
        taskId: 'task-s',
        toolName: 'read_file',
        input: {},
        output: '',
        ok: true,
        contextTokens: 150_000,
        contextWindow: 200_000,
      });
      if (fake.messages.length > before) {
        shownAt.push(call);
        expect(fake.messages.at(-1)).toMatchObject({ level: 'info', items: ['Compact now', 'Dismiss'] });
        expect(fake.messages.at(-1)!.message).toContain('Consider compacting the context now.');
        fake.messages.at(-1)!.answer(answer);
        await flush();
      }
    }
    expect(shownAt).toEqual(suggestedAt);
    expect(fake.statusItems[0]!.text).toBe('$(pulse) 75% · 4 tools');
    await extension.dispose();
  });

  it('hookwise.compactNow and hookwise.dismissSuggestion act on the active task, and say so when they cannot', async () => {
    const workspace = await folder('a');
    const dismissed: string[] = [];
    const compact = vi.fn();
    const fake = createFakeVscode({ folders: [workspace] });
    const { extension } = await start(fake, { loadConfig: configLoader({ plugins: [suggestLike(dismissed)] }), compact });

    await fake.executeCommand(HOOKWISE_COMMANDS.compactNow);
    expect(compact).not.toHaveBeenCalled();
    expect(fake.messages.at(-1)).toMatchObject({ level: 'warning', message: 'hookwise: no task is running, nothing to compact.' });

    await extension.createTaskBinding({ cwd: workspace.uri.fsPath }).taskStarted({ taskId: 'task-2' });
    await fake.executeCommand(HOOKWISE_COMMANDS.compactNow);
    expect(compact).toHaveBeenCalledWith('task-2');
    await fake.executeCommand(HOOKWISE_COMMANDS.compactNow, 'task-other');
    expect(compact).toHaveBeenLastCalledWith('task-other');

    // Nothing suggested yet: nothing to dismiss.
    await fake.executeCommand(HOOKWISE_COMMANDS.dismissSuggestion);
    expect(dismissed).toEqual([]);
    expect(fake.messages.at(-1)).toMatchObject({ level: 'warning', message: 'hookwise: no suggestion to dismiss for task task-2.' });
    // The palette command runs the command the task's latest notice offered.
    const binding = extension.createTaskBinding({ cwd: workspace.uri.fsPath });
    for (let call = 0; call < 2; call++)
      await binding.afterToolUse({ taskId: 'task-2', toolName: 'read_file', input: {}, output: '', ok: true });
    await fake.executeCommand(HOOKWISE_COMMANDS.dismissSuggestion);
    expect(dismissed).toEqual(['task-2']);
    expect(fake.messages.at(-1)).toMatchObject({ level: 'info', message: 'hookwise: Suggestions dismissed for this session.' });
    await extension.dispose();

    const bare = createFakeVscode({ folders: [workspace] });
    const second = await start(bare, { loadConfig: configLoader({}) });
    await second.extension.createTaskBinding().taskStarted({ taskId: 'task-3' });
    await bare.executeCommand(HOOKWISE_COMMANDS.compactNow);
    expect(bare.messages.at(-1)?.message).toContain('does not offer compaction');
    await bare.executeCommand(HOOKWISE_COMMANDS.dismissSuggestion);
    expect(bare.messages.at(-1)?.message).toBe('hookwise: no suggestion to dismiss for task task-3.');
    await second.extension.dispose();
  });

  it('logs a failing hook once in the output channel, with the task id', async () => {
    const workspace = await folder('a');
    const fake = createFakeVscode({ folders: [workspace] });
    const broken = definePlugin({
      meta: { name: 'broken', version: '0.0.0' },
      on: {
        'tool:after': {
          name: 'boom',
          handler: () => {
            throw new Error('kaputt');
          },
        },
      },
    })();
    const { extension } = await start(fake, { loadConfig: configLoader({ plugins: [broken] }) });
    await extension
      .createTaskBinding({ cwd: workspace.uri.fsPath })
      .afterToolUse({ taskId: 'task-9', toolName: 'read_file', input: {}, output: '', ok: true });
    const lines = fake.channels[0]!.lines.filter((line) => line.includes('kaputt') && !line.trimStart().startsWith('at '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('[Task#task-9] broken › boom on tool:after failed: kaputt');
    await extension.dispose();
  });

  it('offers hookwise: report and hookwise: doctor as VS Code tasks', async () => {
    const workspace = await folder('a');
    const fake = createFakeVscode({ folders: [workspace] });
    const { extension } = await start(fake, { loadConfig: configLoader({}), transcriptPath: (taskId) => `/transcripts/${taskId}.json` });
    const provider = fake.taskProviders.get('hookwise')!;
    const token = {} as vscode.CancellationToken;

    const before = (await provider.provideTasks(token)) as vscode.Task[];
    expect(before.map((task) => `${task.source}: ${task.name}`)).toEqual(['hookwise: report', 'hookwise: doctor']);
    const doctor = before[1]!.execution as vscode.ShellExecution;
    expect([doctor.command, ...(doctor.args ?? [])]).toEqual(['npx', '--no', 'hookwise', 'doctor']);
    expect(doctor.options?.cwd).toBe(workspace.uri.fsPath);
    expect((before[0]!.execution as vscode.ShellExecution).args).toEqual(['--no', 'hookwise', 'report']);
    expect(before[0]!.scope).toBe(workspace);

    // With a task running, report gets its transcript.
    await extension.createTaskBinding().taskStarted({ taskId: 'task-9' });
    const after = (await provider.provideTasks(token)) as vscode.Task[];
    expect((after[0]!.execution as vscode.ShellExecution).args).toEqual(['--no', 'hookwise', 'report', '/transcripts/task-9.json']);

    // A task the user wrote in tasks.json is resolved with its own transcript.
    const written = new fake.api.Task(
      { type: 'hookwise', command: 'report', transcript: 'session.jsonl' },
      workspace,
      'report',
      'hookwise',
    );
    const resolved = (await provider.resolveTask(written, token)) as vscode.Task;
    expect((resolved.execution as vscode.ShellExecution).args).toEqual(['--no', 'hookwise', 'report', 'session.jsonl']);
    expect(resolved.definition).toBe(written.definition);
    expect(await provider.resolveTask(new fake.api.Task({ type: 'npm', script: 'x' }, workspace, 'x', 'npm'), token)).toBeUndefined();
    await extension.dispose();
  });

  it('starts and stops engines as workspace folders come and go', async () => {
    const first = await folder('first');
    const second = await folder('second');
    const fake = createFakeVscode({ folders: [first] });
    const { extension } = await start(fake, { loadConfig: configLoader({}) });
    const firstEngine = extension.engineFor(first.uri.fsPath)!;
    const disposeFirst = vi.spyOn(firstEngine, 'dispose');
    fake.setWorkspaceFolders([second]);
    await vi.waitFor(() => expect(extension.engineFor(second.uri.fsPath)).toBeDefined());
    expect(extension.engineFor(first.uri.fsPath)).toBeUndefined();
    expect(disposeFirst).toHaveBeenCalled();
    await extension.dispose();
  });

  it('disposes everything on deactivate', async () => {
    const workspace = await folder('a');
    const fake = createFakeVscode({ folders: [workspace] });
    const { context, extension } = await start(fake, {
      loadConfig: configLoader({ on: { 'llm:before': () => ({ context: 'S' }) } }),
    });
    const engine = extension.engineFor(workspace.uri.fsPath)!;
    const disposeEngine = vi.spyOn(engine, 'dispose');
    const binding = extension.createTaskBinding({ cwd: workspace.uri.fsPath });

    // What VS Code does on deactivate.
    for (const subscription of context.subscriptions) subscription.dispose();
    await extension.dispose(); // the extension's deactivate() may await the same promise

    expect(fake.disposables.length).toBeGreaterThanOrEqual(7); // channel, status item, 3 commands, task provider, folder listener
    expect(fake.disposables.filter((disposable) => !disposable.disposed)).toEqual([]);
    expect(fake.commands.size).toBe(0);
    expect(fake.taskProviders.size).toBe(0);
    expect(disposeEngine).toHaveBeenCalledTimes(1);
    // A task still running after deactivation passes through.
    const result = await binding.beforeModelRequest({ taskId: 't', systemPrompt: 'P', messages: [], model: 'm' });
    expect(result.systemPrompt).toBe('P');
    expect(binding.enabled).toBe(false);
  });
});
