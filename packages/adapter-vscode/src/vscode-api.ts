import type * as vscode from 'vscode';

// The part of `vscode` the adapter uses, typed from @types/vscode: the extension passes its own
// `require('vscode')`, a test fake that drifts from the real API fails to compile, and so does
// this interface if it drifts (the assertion at the bottom).

export interface VscodeWindow {
  createStatusBarItem(id: string, alignment?: vscode.StatusBarAlignment, priority?: number): vscode.StatusBarItem;
  createOutputChannel(name: string, options: { log: true }): vscode.LogOutputChannel;
  showInformationMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
  showWarningMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
}

export interface VscodeCommands {
  registerCommand(command: string, callback: (...args: any[]) => any, thisArg?: any): vscode.Disposable;
}

export interface VscodeTasks {
  registerTaskProvider(type: string, provider: vscode.TaskProvider): vscode.Disposable;
}

export interface VscodeWorkspace {
  readonly workspaceFolders: readonly vscode.WorkspaceFolder[] | undefined;
  readonly onDidChangeWorkspaceFolders: vscode.Event<vscode.WorkspaceFoldersChangeEvent>;
}

/** What `activateHookwise` needs of the `vscode` module: pass `require('vscode')` (or `import * as vscode`). */
export interface VscodeApi {
  readonly window: VscodeWindow;
  readonly commands: VscodeCommands;
  readonly tasks: VscodeTasks;
  readonly workspace: VscodeWorkspace;
  readonly StatusBarAlignment: typeof vscode.StatusBarAlignment;
  readonly Task: typeof vscode.Task;
  readonly ShellExecution: typeof vscode.ShellExecution;
}

/** What `activateHookwise` needs of the extension's context. */
export type ExtensionContextLike = Pick<vscode.ExtensionContext, 'subscriptions'>;

// Compile-time proof that the real module satisfies the narrow interface.
type AssertAssignable<Actual extends Expected, Expected> = [Actual, Expected];
type RealVscodeSatisfiesApi = AssertAssignable<typeof vscode, VscodeApi>;
