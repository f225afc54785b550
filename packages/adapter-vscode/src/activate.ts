import type { Logger, NoticeAction } from '@hookwise/core';
import { createProjectHosts, errorMessage, type Engine, type HostNotice, type HostSession, type LoadedConfig } from '@hookwise/core/host';
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
  // The kit's hosts, one per configured folder: a task goes to the innermost folder holding its cwd.
  const hosts = createProjectHosts();
  let active: HostSession | undefined;
  let disposed = false;

  const statusItem = own(api.window.createStatusBarItem('hookwise.status', api.StatusBarAlignment.Right, 100));
  statusItem.name = 'hookwise';
  statusItem.command = HOOKWISE_COMMANDS.showLog;

  function renderStatus(): void {
    if (disposed) return;
    if (hosts.size === 0) return statusItem.hide();
    const parts: string[] = [];
    const tooltip = [active ? `hookwise: task ${active.id}` : 'hookwise: no task yet.'];
    if (active) {
      const usage = active.contextUsage();
      if (usage) {
        parts.push(usage.short);
        tooltip.push(`Context: ${usage.long}`);
      }
      parts.push(`${active.toolCalls} ${active.toolCalls === 1 ? 'tool' : 'tools'}`);
      tooltip.push(`Tool calls: ${active.toolCalls}`);
    }
    statusItem.text = `$(pulse) ${parts.join(' · ') || 'hookwise'}`;
    statusItem.tooltip = [...tooltip, 'Click to show the log.'].join(active ? '\n' : ' ');
    statusItem.show();
  }

  async function startFolder(folder: vscode.WorkspaceFolder): Promise<void> {
    // Lines of the folder's host carry its name; the channel has its own level filter.
    const folderLogger = createOutputChannelLogger(channel, { prefix: folder.name });
    await hosts.add(folder.uri.fsPath, {
      host: options.host ?? 'vscode',
      scope: 'folder',
      logLevel: 'debug',
      log: (line) => folderLogger[line.level](line.message, line.details),
      ...(options.loadConfig ? { loadConfig: options.loadConfig } : {}),
      notify: show,
      onError: (report) => {
        if (report.kind !== 'config') return;
        const text = `hookwise: the config of ${folder.name} could not be loaded. Hooks are off there.`;
        void api.window.showWarningMessage(text, 'Show log').then(
          (choice) => choice === 'Show log' && channel.show(true),
          () => undefined,
        );
      },
    });
  }

  /** The host of the folder holding `cwd` (the innermost); without `cwd`, the first folder's. A task outside every folder gets no hooks. */
  function hostFor(cwd?: string) {
    if (cwd !== undefined) return hosts.hostFor(cwd);
    const first = api.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return first === undefined ? undefined : hosts.get(first);
  }

  // --- notices and commands ----------------------------------------------------------------------

  const shown = new Set<string>();

  /** Runs what a notice offered: the plugin's command through the kit (its answer shown unless `quiet`), or compaction. */
  async function runAction(task: HostSession, action: NoticeAction, quiet = false): Promise<void> {
    if (!('command' in action)) return compactNow(task.id);
    const result = await task.runCommand(action);
    if (quiet) return;
    if ('error' in result) void api.window.showWarningMessage(`hookwise: ${result.error}`);
    else if (result.text) void api.window.showInformationMessage(`hookwise: ${result.text}`);
  }

  /**
   * A notice that offers actions becomes a non-modal notification with one button per action (the
   * plugin said what it offers, so nothing here names a plugin); other notices go to the log.
   */
  function show(notice: HostNotice, task: HostSession): void {
    // The actions this host can take: plugin commands always, `compact` only when the extension can compact.
    const actions = notice.actions.filter((action) => 'command' in action || options.compact !== undefined);
    if (actions.length === 0) return logger.info(`[Task#${task.id}] ${notice.point}: ${notice.text}`);
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

  async function compactNow(taskId = active?.id): Promise<void> {
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
  async function dismissSuggestion(taskId = active?.id): Promise<void> {
    const task = taskId === undefined ? undefined : hosts.findSession(taskId);
    if (!task?.offeredCommand)
      return void api.window.showWarningMessage(`hookwise: no suggestion to dismiss${taskId === undefined ? '' : ` for task ${taskId}`}.`);
    await runAction(task, task.offeredCommand);
  }

  const taskArgument = (command: (taskId?: string) => Promise<void>) => (taskId?: unknown) =>
    command(typeof taskId === 'string' ? taskId : undefined);
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.compactNow, taskArgument(compactNow)));
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.dismissSuggestion, taskArgument(dismissSuggestion)));
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.showLog, () => channel.show(true)));
  const defaultTranscript = () => (active ? options.transcriptPath?.(active.id) : undefined);
  const cli = options.cli ?? DEFAULT_HOOKWISE_CLI;
  own(api.tasks.registerTaskProvider(HOOKWISE_TASK_TYPE, createHookwiseTaskProvider({ vscode: api, cli, defaultTranscript })));
  own(
    api.workspace.onDidChangeWorkspaceFolders(async (change) => {
      for (const removed of change.removed) await hosts.remove(removed.uri.fsPath);
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
        host: () => (disposed ? undefined : hostFor(cwd)),
        logger,
        onEvent: (event) => {
          const host = hostFor(cwd);
          if (disposed || !host) return;
          // The task that did something last is the one the status bar and the commands act on.
          active = event.point === 'session:end' ? undefined : host.session(event.taskId);
          renderStatus();
        },
      }),
    engineFor: (cwd) => hostFor(cwd)?.loadedEngine,
    get activeTaskId() {
      return active?.id;
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
      disposing = hosts.dispose().then(() => channel.dispose());
      return disposing;
    },
  };
  context.subscriptions.push({ dispose: () => void extension.dispose() });
  return extension;
}
