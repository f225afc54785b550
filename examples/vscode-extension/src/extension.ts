import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { activateHookwise, type HookwiseExtension } from '@hookwise/adapter-vscode';
import { createScriptedApiHandler, ExampleTask } from './task';

let hookwise: HookwiseExtension | undefined;
const tasks = new Map<string, ExampleTask>();

export interface ExampleRunResult {
  taskId: string;
  answer: string;
  /** The system prompts the model received, one per request: hookwise's summary shows up here. */
  systemPrompts: string[];
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  hookwise = await activateHookwise(context, {
    vscode,
    // "Compact now" (a suggestion's button or the command) condenses the task, as Roo's condense does.
    compact: async (taskId) => {
      await tasks.get(taskId)?.condense('manual');
    },
  });

  context.subscriptions.push(
    vscode.commands.registerCommand('hookwiseExample.runTask', async (prompt?: string): Promise<ExampleRunResult | undefined> => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder || !hookwise) {
        void vscode.window.showWarningMessage('Open a folder first.');
        return undefined;
      }
      const cwd = folder.uri.fsPath;
      const api = createScriptedApiHandler();
      const task = new ExampleTask(randomUUID(), cwd, api, hookwise.createTaskBinding({ cwd }));
      task.activeIntentId = 'EXAMPLE-INTENT-1';
      // Kept for "Compact now" until deactivation; a real agent ends a task when the user closes it.
      tasks.set(task.taskId, task);
      const answer = await task.run(prompt ?? 'Look around the workspace.');
      void vscode.window.showInformationMessage(`Example task: ${answer}`);
      return { taskId: task.taskId, answer, systemPrompts: api.received.map((request) => request.systemPrompt) };
    }),
  );
}

export async function deactivate(): Promise<void> {
  for (const task of tasks.values()) await task.dispose();
  tasks.clear();
  await hookwise?.dispose();
  hookwise = undefined;
}
