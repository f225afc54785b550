import path from 'node:path';
import type { Logger, NoticeAction } from '@hookwise/core';
import {
  createHost,
  errorMessage,
  type Engine,
  type Host,
  type HostNotice,
  type HostSession,
  type LoadedConfig,
} from '@hookwise/core/host';
import type * as vscode from 'vscode';
import { createHookwiseTaskProvider, DEFAULT_HOOKWISE_CLI, HOOKWISE_TASK_TYPE, type HookwiseCli } from './hookwise-tasks.js';
import { createOutputChannelLogger } from './output-logger.js';
import { createTaskBinding, type TaskBinding } from './task-binding.js';
import type { ExtensionContextLike, VscodeApi } from './vscode-api.js';

export const HOOKWISE_COMMANDS = {
  compactNow: 'hookwise.compactNow',
  dismissSuggestion: 'hookwise.dismissSuggestion',
  showLog: 'hookwise.showLog',
} as const;

export interface ActivateHookwiseOptions {
  /** The `vscode` module: pass `require('vscode')` (keep `vscode` external when bundling). */
  vscode: VscodeApi;
  /**
   * Compacts a task now (Roo's condense). Called by "Compact now" and `hookwise.compactNow`;
   * the task loop should call the binding's `beforeCondense` / `afterCondense` around it as usual.
   */
  compact?: (taskId: string) => void | Promise<void>;
  /** A task's transcript file, offered to the `hookwise: report` task. */
  transcriptPath?: (taskId: string) => string | undefined;
  /** How the tasks start the hookwise CLI; default `npx --no hookwise`. */
  cli?: HookwiseCli;
  /** Host name in payloads; default `vscode`. */
  host?: string;
  /** Output channel name; default `hookwise`. */
  outputChannelName?: string;
  /** Loads a folder's config; default core's `loadConfig` (`hookwise.config.*`). A result without `file` means "not configured". */
  loadConfig?: (projectDir: string) => Promise<LoadedConfig>;
}

export interface HookwiseExtension {
  /** A binding for a task running in `cwd` (default: the first workspace folder). */
  createTaskBinding(options?: { cwd?: string }): TaskBinding;
  /** The engine of the workspace folder holding `cwd`, or undefined when hookwise is not configured there. */
  engineFor(cwd?: string): Engine | undefined;
  /** The task the status bar and the commands act on: the last one that did something. */
  readonly activeTaskId: string | undefined;
  readonly logger: Logger;
  /** Disposes everything (also done through `context.subscriptions` on deactivate); resolves once engines are closed. */
  dispose(): Promise<void>;
}

type CommandAction = Extract<NoticeAction, { command: string }>;
/** What the extension keeps of a task in its session: tool calls, and the plugin command its latest notice offered. */
interface TaskData {
  toolCalls: number;
  folder: Folder;
  action?: CommandAction;
}
interface Folder {
  folder: vscode.WorkspaceFolder;
  host: Host<TaskData>;
  engine: Engine;
}

const tokens = (value: number) => value.toLocaleString('en-US');

/**
 * Starts hookwise in an extension's `activate()`: one host (engine, sessions, state in the
 * folder's `.hookwise/`) per workspace folder that has a `hookwise.config.*`, the commands, a
 * status bar item, notifications for notices that offer actions, the `hookwise: report` /
 * `hookwise: doctor` tasks and an output channel. Never throws for a broken config: it is
 * logged and shown, and that folder runs without hooks.
 */
export async function activateHookwise(context: ExtensionContextLike, options: ActivateHookwiseOptions): Promise<HookwiseExtension> {
  const { vscode: api } = options;
  const disposables: vscode.Disposable[] = [];
  const own = <T extends vscode.Disposable>(disposable: T): T => {
    disposables.push(disposable);
    return disposable;
  };
  const channel = own(api.window.createOutputChannel(options.outputChannelName ?? 'hookwise', { log: true }));
  const logger = createOutputChannelLogger(channel);
  const folders = new Map<string, Folder>();
  const tasks = new Map<string, HostSession<TaskData>>();
  let activeTaskId: string | undefined;
  let disposed = false;

  const statusItem = own(api.window.createStatusBarItem('hookwise.status', api.StatusBarAlignment.Right, 100));
  statusItem.name = 'hookwise';
  statusItem.command = HOOKWISE_COMMANDS.showLog;

  function renderStatus(): void {
    if (disposed) return;
    if (folders.size === 0) return statusItem.hide();
    const task = activeTaskId === undefined ? undefined : tasks.get(activeTaskId);
    const parts: string[] = [];
    const tooltip = [task ? `hookwise: task ${activeTaskId}` : 'hookwise: no task yet.'];
    if (task) {
      const { contextTokens: used, contextWindow: window } = task.fields;
      if (used !== undefined && window !== undefined) {
        const percent = Math.round((used / window) * 100);
        parts.push(`${percent}%`);
        tooltip.push(`Context: ${tokens(used)} of ${tokens(window)} tokens (${percent}%)`);
      } else if (used !== undefined) {
        parts.push(`${tokens(used)} tok`);
        tooltip.push(`Context: ${tokens(used)} tokens`);
      }
      parts.push(`${task.data.toolCalls} ${task.data.toolCalls === 1 ? 'tool' : 'tools'}`);
      tooltip.push(`Tool calls: ${task.data.toolCalls}`);
    }
    statusItem.text = `$(pulse) ${parts.join(' · ') || 'hookwise'}`;
    statusItem.tooltip = [...tooltip, 'Click to show the log.'].join(task ? '\n' : ' ');
    statusItem.show();
  }

  // --- a host per configured workspace folder ---------------------------------------------------

  async function startFolder(folder: vscode.WorkspaceFolder): Promise<void> {
    // Lines of the folder's host carry its name; the channel has its own level filter.
    const folderLogger = createOutputChannelLogger(channel, { prefix: folder.name });
    const entry = { folder } as Folder;
    entry.host = createHost<TaskData>({
      host: options.host ?? 'vscode',
      projectDir: folder.uri.fsPath,
      scope: 'folder',
      logLevel: 'debug',
      log: (line) => folderLogger[line.level](line.message, line.details),
      ...(options.loadConfig ? { loadConfig: options.loadConfig } : {}),
      session: () => ({ toolCalls: 0, folder: entry }),
      notify: (notice) => show(track(entry.host.session(notice.sessionId)), notice),
      onError: (report) => {
        if (report.kind !== 'config') return;
        const text = `hookwise: the config of ${folder.name} could not be loaded. Hooks are off there.`;
        void api.window.showWarningMessage(text, 'Show log').then(
          (choice) => choice === 'Show log' && channel.show(true),
          () => undefined,
        );
      },
    });
    const engine = await entry.host.engine();
    if (!engine) return;
    if (disposed) return entry.host.dispose();
    folders.set(folder.uri.fsPath, Object.assign(entry, { engine }));
  }

  /** The folder holding `cwd` (the innermost); without `cwd`, the first one. A task outside every folder gets no hooks. */
  function folderFor(cwd?: string): Folder | undefined {
    if (cwd === undefined) return folders.get(api.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '');
    const target = path.resolve(cwd);
    let best: Folder | undefined;
    for (const entry of folders.values()) {
      const root = entry.folder.uri.fsPath;
      const inside = target === root || target.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
      if (inside && (!best || root.length > best.folder.uri.fsPath.length)) best = entry;
    }
    return best;
  }

  // --- notices and commands ----------------------------------------------------------------------

  const track = (session: HostSession<TaskData>) => {
    tasks.set(session.id, session);
    return session;
  };
  const shown = new Set<string>();

  async function runAction(task: HostSession<TaskData>, action: NoticeAction, quiet = false): Promise<void> {
    if (!('command' in action)) return compactNow(task.id);
    try {
      const text = await task.data.folder.engine.runCommand(action.command, action.args ?? [], { sessionId: task.id });
      logger.info(`${action.command} (task ${task.id}): ${text || 'done'}`);
      if (!quiet && text) void api.window.showInformationMessage(`hookwise: ${text}`);
    } catch (error) {
      logger.warn(`${action.command} failed: ${errorMessage(error)}`);
      if (!quiet) void api.window.showWarningMessage(`hookwise: ${errorMessage(error)}`);
    }
  }

  /**
   * A notice that offers actions becomes a non-modal notification with one button per action (the
   * plugin said what it offers, so nothing here names a plugin); other notices go to the log.
   */
  function show(task: HostSession<TaskData>, notice: HostNotice): void {
    // The actions this host can take: plugin commands always, `compact` only when the extension can compact.
    const actions = notice.actions.filter((action) => 'command' in action || options.compact !== undefined);
    if (actions.length === 0) return logger.info(`[Task#${task.id}] ${notice.point}: ${notice.text}`);
    const command = actions.find((action): action is CommandAction => 'command' in action);
    if (command) task.data.action = command;
    const key = `${task.id}\u0000${notice.text}`;
    if (shown.has(key)) return; // the same notice is still on screen
    shown.add(key);
    api.window.showInformationMessage(`hookwise: ${notice.text}`, ...actions.map((action) => action.label)).then(
      async (choice) => {
        shown.delete(key);
        const action = actions.find((candidate) => candidate.label === choice);
        if (action) await runAction(task, action, true);
      },
      (error: unknown) => {
        shown.delete(key);
        logger.warn(`could not show a notice: ${errorMessage(error)}`);
      },
    );
  }

  async function compactNow(taskId = activeTaskId): Promise<void> {
    if (taskId === undefined) return void api.window.showWarningMessage('hookwise: no task is running, nothing to compact.');
    if (!options.compact)
      return void api.window.showWarningMessage('hookwise: this extension does not offer compaction; use its own condense command.');
    try {
      await options.compact(taskId);
    } catch (error) {
      logger.error(`[Task#${taskId}] compaction failed: ${errorMessage(error)}`);
      void api.window.showWarningMessage(`hookwise: compaction failed: ${errorMessage(error)}`);
    }
  }

  /** Runs the plugin command the task's latest notice offered (hook-suggest's: dismiss the suggestion). */
  async function dismissSuggestion(taskId = activeTaskId): Promise<void> {
    const task = taskId === undefined ? undefined : tasks.get(taskId);
    if (!task?.data.action)
      return void api.window.showWarningMessage(`hookwise: no suggestion to dismiss${taskId === undefined ? '' : ` for task ${taskId}`}.`);
    await runAction(task, task.data.action);
  }

  const taskArgument = (command: (taskId?: string) => Promise<void>) => (taskId?: unknown) =>
    command(typeof taskId === 'string' ? taskId : undefined);
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.compactNow, taskArgument(compactNow)));
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.dismissSuggestion, taskArgument(dismissSuggestion)));
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.showLog, () => channel.show(true)));
  const defaultTranscript = () => (activeTaskId !== undefined ? options.transcriptPath?.(activeTaskId) : undefined);
  const cli = options.cli ?? DEFAULT_HOOKWISE_CLI;
  own(api.tasks.registerTaskProvider(HOOKWISE_TASK_TYPE, createHookwiseTaskProvider({ vscode: api, cli, defaultTranscript })));
  own(
    api.workspace.onDidChangeWorkspaceFolders(async (change) => {
      for (const removed of change.removed) {
        const entry = folders.get(removed.uri.fsPath);
        folders.delete(removed.uri.fsPath);
        await entry?.host.dispose(); // the kit's dispose never throws
      }
      for (const added of change.added) await startFolder(added);
      renderStatus();
    }),
  );

  for (const folder of api.workspace.workspaceFolders ?? []) await startFolder(folder);
  renderStatus();

  let disposing: Promise<void> | undefined;
  const extension: HookwiseExtension = {
    createTaskBinding: ({ cwd } = {}) =>
      createTaskBinding({
        host: () => (disposed ? undefined : folderFor(cwd)?.host),
        logger,
        onEvent: (event) => {
          const folder = folderFor(cwd);
          if (disposed || !folder) return;
          // The task that did something last is the one the status bar and the commands act on.
          activeTaskId = event.point === 'session:end' ? undefined : event.taskId;
          if (event.point === 'session:end') tasks.delete(event.taskId);
          else if (event.point === 'tool:after') track(folder.host.session(event.taskId)).data.toolCalls++;
          else track(folder.host.session(event.taskId));
          renderStatus();
        },
      }),
    engineFor: (cwd) => folderFor(cwd)?.engine,
    get activeTaskId() {
      return activeTaskId;
    },
    logger,
    dispose() {
      if (disposing) return disposing;
      disposed = true;
      // The editor does not wait for this, so the UI goes at once; the output channel goes last,
      // after the engines, so what they log while closing is not lost.
      for (const disposable of disposables.reverse()) {
        try {
          if (disposable !== channel) disposable.dispose();
        } catch {
          // one failing dispose must not keep the others alive
        }
      }
      const open = [...folders.values()];
      folders.clear();
      disposing = Promise.all(open.map(({ host }) => host.dispose())).then(() => channel.dispose());
      return disposing;
    },
  };
  context.subscriptions.push({ dispose: () => void extension.dispose() });
  return extension;
}
