import path from 'node:path';
import type { Logger, MergedNotice, NoticeAction } from '@hookwise/core';
import { createHost, errorMessage, type Engine, type Host, type LoadedConfig } from '@hookwise/core/host';
import type * as vscode from 'vscode';
import { createHookwiseTaskProvider, DEFAULT_HOOKWISE_CLI, HOOKWISE_TASK_TYPE, type HookwiseCli } from './hookwise-tasks.js';
import { createOutputChannelLogger } from './output-logger.js';
import { createTaskBinding, type TaskBinding, type TaskBindingEvent } from './task-binding.js';
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

interface TaskStats {
  toolCalls: number;
  contextTokens: number | undefined;
  contextWindow: number | undefined;
}

interface FolderEngine {
  folder: vscode.WorkspaceFolder;
  host: Host;
  engine: Engine;
}

const formatTokens = (value: number) => value.toLocaleString('en-US');

/**
 * Starts hookwise in an extension's `activate()`: one engine per workspace folder that has a
 * `hookwise.config.*` (state in the folder's `.hookwise/`), the commands, a status bar item,
 * suggestion notifications, the `hookwise: report` / `hookwise: doctor` tasks and an output
 * channel. Never throws for a broken config: it is logged and that folder runs without hooks.
 */
export async function activateHookwise(context: ExtensionContextLike, options: ActivateHookwiseOptions): Promise<HookwiseExtension> {
  const { vscode: api } = options;
  const host = options.host ?? 'vscode';
  const disposables: vscode.Disposable[] = [];
  const own = <T extends vscode.Disposable>(disposable: T): T => {
    disposables.push(disposable);
    return disposable;
  };

  const channel = own(api.window.createOutputChannel(options.outputChannelName ?? 'hookwise', { log: true }));
  const logger = createOutputChannelLogger(channel);

  const engines = new Map<string, FolderEngine>();
  const stats = new Map<string, TaskStats>();
  let activeTaskId: string | undefined;
  let disposed = false;

  const statusItem = own(api.window.createStatusBarItem('hookwise.status', api.StatusBarAlignment.Right, 100));
  statusItem.name = 'hookwise';
  statusItem.command = HOOKWISE_COMMANDS.showLog;

  function renderStatus(): void {
    if (disposed) return;
    if (engines.size === 0) {
      statusItem.hide();
      return;
    }
    const current = activeTaskId === undefined ? undefined : stats.get(activeTaskId);
    if (!current) {
      statusItem.text = '$(pulse) hookwise';
      statusItem.tooltip = 'hookwise: no task yet. Click to show the log.';
    } else {
      const parts: string[] = [];
      const tooltip = [`hookwise: task ${activeTaskId}`];
      if (current.contextTokens !== undefined && current.contextWindow !== undefined) {
        const percent = Math.round((current.contextTokens / current.contextWindow) * 100);
        parts.push(`${percent}%`);
        tooltip.push(`Context: ${formatTokens(current.contextTokens)} of ${formatTokens(current.contextWindow)} tokens (${percent}%)`);
      } else if (current.contextTokens !== undefined) {
        parts.push(`${formatTokens(current.contextTokens)} tok`);
        tooltip.push(`Context: ${formatTokens(current.contextTokens)} tokens`);
      }
      parts.push(`${current.toolCalls} ${current.toolCalls === 1 ? 'tool' : 'tools'}`);
      tooltip.push(`Tool calls: ${current.toolCalls}`, 'Click to show the log.');
      statusItem.text = `$(pulse) ${parts.join(' · ')}`;
      statusItem.tooltip = tooltip.join('\n');
    }
    statusItem.show();
  }

  // --- engines, one per configured workspace folder -------------------------------------------

  async function startFolder(folder: vscode.WorkspaceFolder): Promise<void> {
    const projectDir = folder.uri.fsPath;
    // Lines of the folder's engine carry its name; the channel has its own level filter, so the
    // config's `logLevel` applies only when it names one.
    const folderLogger = createOutputChannelLogger(channel, { prefix: folder.name });
    const folderHost = createHost({
      host,
      projectDir,
      scope: 'folder',
      logLevel: 'debug',
      log: (entry) => folderLogger[entry.level](entry.message, entry.details),
      ...(options.loadConfig ? { loadConfig: options.loadConfig } : {}),
      onError: (report) => {
        if (report.kind !== 'config') return;
        void api.window
          .showWarningMessage(`hookwise: the config of ${folder.name} could not be loaded. Hooks are off there.`, 'Show log')
          .then(
            (choice) => choice === 'Show log' && channel.show(true),
            () => undefined,
          );
      },
    });
    const engine = await folderHost.engine();
    if (!engine) return;
    if (disposed) return folderHost.dispose();
    engines.set(projectDir, { folder, host: folderHost, engine });
  }

  async function stopFolder(folder: vscode.WorkspaceFolder): Promise<void> {
    const entry = engines.get(folder.uri.fsPath);
    if (!entry) return;
    engines.delete(folder.uri.fsPath);
    await entry.host
      .dispose()
      .catch((error: unknown) => logger.warn(`${folder.name}: engine did not close cleanly: ${errorMessage(error)}`));
  }

  function engineFor(cwd?: string): Engine | undefined {
    if (cwd !== undefined) {
      const target = path.resolve(cwd);
      let best: FolderEngine | undefined;
      for (const entry of engines.values()) {
        const root = entry.folder.uri.fsPath;
        const inside = target === root || target.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
        if (inside && (!best || root.length > best.folder.uri.fsPath.length)) best = entry;
      }
      if (best) return best.engine;
      // A task outside every folder gets no hooks rather than another folder's.
      return undefined;
    }
    const first = api.workspace.workspaceFolders?.[0];
    return first ? engines.get(first.uri.fsPath)?.engine : undefined;
  }

  // --- what tasks report through their bindings --------------------------------------------------

  const shownNotices = new Set<string>();
  /** The latest notice of each task that offered a plugin command (what `hookwise.dismissSuggestion` acts on). */
  const latestActions = new Map<string, NoticeAction & { command: string }>();

  /** The actions this host can take: plugin commands always, `compact` only when the extension can compact. */
  const usable = (actions: readonly NoticeAction[]) =>
    actions.filter((action) => ('command' in action ? true : action.hostAction === 'compact' && options.compact !== undefined));

  async function runAction(taskId: string, action: NoticeAction, mode: { quiet?: boolean } = {}): Promise<void> {
    if (!('command' in action)) {
      await compactNow(taskId);
      return;
    }
    const engine = engineFor(folderOfTask(taskId));
    if (!engine) return;
    try {
      const text = await engine.runCommand(action.command, action.args ?? [], { sessionId: taskId });
      logger.info(`${action.command} (task ${taskId}): ${text || 'done'}`);
      if (!mode.quiet && text) void api.window.showInformationMessage(`hookwise: ${text}`);
    } catch (error) {
      const message = errorMessage(error);
      logger.warn(`${action.command} failed: ${message}`);
      if (!mode.quiet) void api.window.showWarningMessage(`hookwise: ${message}`);
    }
  }

  /**
   * A notice that offers actions becomes a non-modal notification with one button per action;
   * the plugin said what it offers (what it is about and its own commands), so nothing here names a plugin.
   */
  function show(taskId: string, notice: MergedNotice): void {
    const actions = usable(notice.actions);
    const command = actions.find((action): action is NoticeAction & { command: string } => 'command' in action);
    if (command) latestActions.set(taskId, command);
    const key = `${taskId}\u0000${notice.text}`;
    if (shownNotices.has(key)) return; // the same notice is still on screen
    shownNotices.add(key);
    api.window.showInformationMessage(`hookwise: ${notice.text}`, ...actions.map((action) => action.label)).then(
      async (choice) => {
        shownNotices.delete(key);
        const action = actions.find((candidate) => candidate.label === choice);
        if (action) await runAction(taskId, action, { quiet: true });
      },
      (error: unknown) => {
        shownNotices.delete(key);
        logger.warn(`could not show a notice: ${errorMessage(error)}`);
      },
    );
  }

  function onEvent(event: TaskBindingEvent): void {
    if (disposed) return;
    activeTaskId = event.taskId;
    const current = stats.get(event.taskId) ?? { toolCalls: 0, contextTokens: undefined, contextWindow: undefined };
    if (event.point === 'tool:after') current.toolCalls++;
    if (event.contextTokens !== undefined) current.contextTokens = event.contextTokens;
    if (event.contextWindow !== undefined) current.contextWindow = event.contextWindow;
    if (event.point === 'compact:after') current.contextTokens = undefined; // stale until the next request says
    stats.set(event.taskId, current);
    for (const notice of event.outcome?.notices ?? []) {
      if (usable(notice.actions).length > 0) show(event.taskId, notice);
      else logger.info(`[Task#${event.taskId}] ${event.point}: ${notice.text}`);
    }
    if (event.point === 'session:end') {
      stats.delete(event.taskId);
      latestActions.delete(event.taskId);
      if (activeTaskId === event.taskId) activeTaskId = undefined;
    }
    renderStatus();
  }

  // --- commands --------------------------------------------------------------------------------

  async function compactNow(taskId?: string): Promise<void> {
    const target = typeof taskId === 'string' ? taskId : activeTaskId;
    if (target === undefined) {
      void api.window.showWarningMessage('hookwise: no task is running, nothing to compact.');
      return;
    }
    if (!options.compact) {
      void api.window.showWarningMessage('hookwise: this extension does not offer compaction; use its own condense command.');
      return;
    }
    try {
      await options.compact(target);
    } catch (error) {
      logger.error(`[Task#${target}] compaction failed: ${errorMessage(error)}`);
      void api.window.showWarningMessage(`hookwise: compaction failed: ${errorMessage(error)}`);
    }
  }

  /** Runs the plugin command the task's latest notice offered (hook-suggest's: dismiss the suggestion). */
  async function dismissSuggestion(taskId?: string): Promise<void> {
    const target = typeof taskId === 'string' ? taskId : activeTaskId;
    const action = target === undefined ? undefined : latestActions.get(target);
    if (target === undefined || !action) {
      void api.window.showWarningMessage(`hookwise: no suggestion to dismiss${target === undefined ? '' : ` for task ${target}`}.`);
      return;
    }
    await runAction(target, action);
  }

  // Tasks remember the folder they run in, so commands reach the right engine.
  const taskFolders = new Map<string, string>();
  const folderOfTask = (taskId: string) => taskFolders.get(taskId);

  own(
    api.commands.registerCommand(HOOKWISE_COMMANDS.compactNow, (taskId?: unknown) =>
      compactNow(typeof taskId === 'string' ? taskId : undefined),
    ),
  );
  own(
    api.commands.registerCommand(HOOKWISE_COMMANDS.dismissSuggestion, (taskId?: unknown) =>
      dismissSuggestion(typeof taskId === 'string' ? taskId : undefined),
    ),
  );
  own(api.commands.registerCommand(HOOKWISE_COMMANDS.showLog, () => channel.show(true)));

  own(
    api.tasks.registerTaskProvider(
      HOOKWISE_TASK_TYPE,
      createHookwiseTaskProvider({
        vscode: api,
        cli: options.cli ?? DEFAULT_HOOKWISE_CLI,
        defaultTranscript: () => (activeTaskId !== undefined ? options.transcriptPath?.(activeTaskId) : undefined),
      }),
    ),
  );

  own(
    api.workspace.onDidChangeWorkspaceFolders((change) => {
      void (async () => {
        for (const folder of change.removed) await stopFolder(folder);
        for (const folder of change.added) await startFolder(folder);
        renderStatus();
      })();
    }),
  );

  for (const folder of api.workspace.workspaceFolders ?? []) await startFolder(folder);
  renderStatus();

  let disposing: Promise<void> | undefined;
  const extension: HookwiseExtension = {
    createTaskBinding(bindingOptions = {}) {
      const cwd = bindingOptions.cwd;
      return createTaskBinding({
        engine: () => (disposed ? undefined : engineFor(cwd)),
        logger,
        onEvent: (event) => {
          // Remember each task's folder, so the commands reach the right engine.
          if (cwd !== undefined) {
            if (event.point === 'session:end') taskFolders.delete(event.taskId);
            else taskFolders.set(event.taskId, cwd);
          }
          onEvent(event);
        },
      });
    },
    engineFor,
    get activeTaskId() {
      return activeTaskId;
    },
    logger,
    dispose() {
      if (disposing) return disposing;
      disposed = true;
      // The editor does not wait for this, so the UI goes at once; the output channel goes last,
      // after the engines, so what they log while closing is not lost.
      for (const disposable of [...disposables].reverse()) {
        if (disposable === channel) continue;
        try {
          disposable.dispose();
        } catch {
          // one failing dispose must not keep the others alive
        }
      }
      const open = [...engines.values()];
      engines.clear();
      disposing = Promise.all(
        open.map(({ folder, host: folderHost }) =>
          folderHost
            .dispose()
            .catch((error: unknown) => logger.warn(`${folder.name}: engine did not close cleanly: ${errorMessage(error)}`)),
        ),
      ).then(() => channel.dispose());
      return disposing;
    },
  };
  context.subscriptions.push({ dispose: () => void extension.dispose() });
  return extension;
}
