import path from 'node:path';
import type * as vscode from 'vscode';
import type { VscodeApi } from '../vscode-api.js';

/*
 * A fake of the part of `vscode` the adapter uses. Everything it returns is typed with the real
 * @types/vscode types (StatusBarItem, LogOutputChannel, Task, …), so when the real API changes
 * in a way the adapter relies on, this file stops compiling (`npm run type-check`).
 */

export interface ShownMessage {
  level: 'info' | 'warning';
  message: string;
  items: string[];
  /** Clicks one of the buttons (or closes the notification with undefined). */
  answer(choice: string | undefined): void;
}

class FakeDisposable implements vscode.Disposable {
  disposed = false;
  constructor(private readonly onDispose: () => void = () => undefined) {}
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onDispose();
  }
}

function fakeUri(fsPath: string): vscode.Uri {
  const uriPath = fsPath.split(path.sep).join('/');
  const uri: vscode.Uri = {
    scheme: 'file',
    authority: '',
    path: uriPath,
    query: '',
    fragment: '',
    fsPath,
    with: () => uri,
    toString: () => `file://${uriPath}`,
    toJSON: () => ({ scheme: 'file', path: uriPath }),
  };
  return uri;
}

export function fakeWorkspaceFolder(fsPath: string, index = 0): vscode.WorkspaceFolder {
  return { uri: fakeUri(fsPath), name: path.basename(fsPath), index };
}

class FakeStatusBarItem extends FakeDisposable implements vscode.StatusBarItem {
  name: string | undefined;
  text = '';
  tooltip: string | vscode.MarkdownString | undefined;
  color: string | vscode.ThemeColor | undefined;
  backgroundColor: vscode.ThemeColor | undefined;
  command: string | vscode.Command | undefined;
  accessibilityInformation: vscode.AccessibilityInformation | undefined;
  visible = false;
  constructor(
    readonly id: string,
    readonly alignment: vscode.StatusBarAlignment,
    readonly priority: number | undefined,
  ) {
    super();
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
}

class FakeLogOutputChannel extends FakeDisposable implements vscode.LogOutputChannel {
  readonly lines: string[] = [];
  readonly logLevel = 2 as vscode.LogLevel.Debug;
  shown = 0;
  constructor(readonly name: string) {
    super();
  }
  readonly onDidChangeLogLevel: vscode.Event<vscode.LogLevel> = () => new FakeDisposable();
  append(value: string): void {
    this.lines.push(value);
  }
  appendLine(value: string): void {
    this.lines.push(value);
  }
  replace(value: string): void {
    this.lines.splice(0, this.lines.length, value);
  }
  clear(): void {
    this.lines.length = 0;
  }
  show(): void {
    this.shown++;
  }
  hide(): void {}
  trace(message: string): void {
    this.lines.push(`[trace] ${message}`);
  }
  debug(message: string): void {
    this.lines.push(`[debug] ${message}`);
  }
  info(message: string): void {
    this.lines.push(`[info] ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`[warning] ${message}`);
  }
  error(error: string | Error): void {
    this.lines.push(`[error] ${typeof error === 'string' ? error : error.message}`);
  }
}

class FakeShellExecution implements vscode.ShellExecution {
  commandLine: string | undefined;
  command: string | vscode.ShellQuotedString | undefined;
  args: Array<string | vscode.ShellQuotedString> | undefined;
  options?: vscode.ShellExecutionOptions;
  constructor(commandOrLine: string | vscode.ShellQuotedString, argsOrOptions?: Array<string | vscode.ShellQuotedString> | vscode.ShellExecutionOptions, options?: vscode.ShellExecutionOptions) {
    if (Array.isArray(argsOrOptions)) {
      this.command = commandOrLine;
      this.args = argsOrOptions;
      if (options) this.options = options;
    } else {
      this.commandLine = typeof commandOrLine === 'string' ? commandOrLine : commandOrLine.value;
      if (argsOrOptions) this.options = argsOrOptions;
    }
  }
}

class FakeTask implements vscode.Task {
  definition: vscode.TaskDefinition;
  readonly scope: vscode.TaskScope.Global | vscode.TaskScope.Workspace | vscode.WorkspaceFolder | undefined;
  name: string;
  detail?: string;
  execution?: vscode.ProcessExecution | vscode.ShellExecution | vscode.CustomExecution;
  isBackground = false;
  source: string;
  group?: vscode.TaskGroup;
  presentationOptions: vscode.TaskPresentationOptions = {};
  problemMatchers: string[];
  runOptions: vscode.RunOptions = {};
  constructor(
    definition: vscode.TaskDefinition,
    scope: vscode.WorkspaceFolder | vscode.TaskScope.Global | vscode.TaskScope.Workspace,
    name: string,
    source: string,
    execution?: vscode.ProcessExecution | vscode.ShellExecution | vscode.CustomExecution,
    problemMatchers?: string | string[],
  );
  /** The deprecated form without a scope, which the real class still has. */
  constructor(definition: vscode.TaskDefinition, name: string, source: string, execution?: vscode.ProcessExecution | vscode.ShellExecution, problemMatchers?: string | string[]);
  constructor(definition: vscode.TaskDefinition, ...rest: unknown[]) {
    const scoped = typeof rest[0] !== 'string';
    const [scope, name, source, execution, problemMatchers] = (scoped ? rest : [undefined, ...rest]) as [
      FakeTask['scope'],
      string,
      string,
      FakeTask['execution'],
      string | string[] | undefined,
    ];
    this.definition = definition;
    this.scope = scope;
    this.name = name;
    this.source = source;
    if (execution) this.execution = execution;
    this.problemMatchers = problemMatchers === undefined ? [] : Array.isArray(problemMatchers) ? problemMatchers : [problemMatchers];
  }
}

export interface FakeVscode {
  api: VscodeApi;
  statusItems: FakeStatusBarItem[];
  channels: FakeLogOutputChannel[];
  messages: ShownMessage[];
  commands: Map<string, (...args: any[]) => any>;
  taskProviders: Map<string, vscode.TaskProvider>;
  /** Every disposable the fake handed out. */
  disposables: FakeDisposable[];
  executeCommand(id: string, ...args: unknown[]): Promise<unknown>;
  setWorkspaceFolders(folders: vscode.WorkspaceFolder[]): void;
}

export function createFakeVscode(options: { folders?: vscode.WorkspaceFolder[] } = {}): FakeVscode {
  const statusItems: FakeStatusBarItem[] = [];
  const channels: FakeLogOutputChannel[] = [];
  const messages: ShownMessage[] = [];
  const commands = new Map<string, (...args: any[]) => any>();
  const taskProviders = new Map<string, vscode.TaskProvider>();
  const disposables: FakeDisposable[] = [];
  const folderListeners = new Set<(event: vscode.WorkspaceFoldersChangeEvent) => unknown>();
  let folders: vscode.WorkspaceFolder[] | undefined = options.folders;

  const track = <T extends FakeDisposable>(disposable: T): T => {
    disposables.push(disposable);
    return disposable;
  };
  const show =
    (level: ShownMessage['level']) =>
    <T extends string>(message: string, ...items: T[]): Thenable<T | undefined> =>
      new Promise<T | undefined>((resolve) => {
        messages.push({ level, message, items, answer: (choice) => resolve(choice as T | undefined) });
      });

  const api: VscodeApi = {
    window: {
      createStatusBarItem: (id, alignment, priority) => {
        const item = track(new FakeStatusBarItem(id, alignment ?? (1 as vscode.StatusBarAlignment.Left), priority));
        statusItems.push(item);
        return item;
      },
      createOutputChannel: (name) => {
        const channel = track(new FakeLogOutputChannel(name));
        channels.push(channel);
        return channel;
      },
      showInformationMessage: show('info'),
      showWarningMessage: show('warning'),
    },
    commands: {
      registerCommand: (command, callback) => {
        if (commands.has(command)) throw new Error(`command '${command}' already exists`);
        commands.set(command, callback);
        return track(new FakeDisposable(() => commands.delete(command)));
      },
    },
    tasks: {
      registerTaskProvider: (type, provider) => {
        taskProviders.set(type, provider);
        return track(new FakeDisposable(() => taskProviders.delete(type)));
      },
    },
    workspace: {
      get workspaceFolders() {
        return folders;
      },
      onDidChangeWorkspaceFolders: (listener) => {
        folderListeners.add(listener);
        return track(new FakeDisposable(() => folderListeners.delete(listener)));
      },
    },
    StatusBarAlignment: { Left: 1, Right: 2 } as typeof vscode.StatusBarAlignment,
    Task: FakeTask,
    ShellExecution: FakeShellExecution,
  };

  return {
    api,
    statusItems,
    channels,
    messages,
    commands,
    taskProviders,
    disposables,
    async executeCommand(id, ...args) {
      const command = commands.get(id);
      if (!command) throw new Error(`command '${id}' not found`);
      return await command(...args);
    },
    setWorkspaceFolders(next) {
      const before = folders ?? [];
      folders = next;
      const event: vscode.WorkspaceFoldersChangeEvent = {
        added: next.filter((folder) => !before.includes(folder)),
        removed: before.filter((folder) => !next.includes(folder)),
      };
      for (const listener of folderListeners) listener(event);
    },
  };
}
