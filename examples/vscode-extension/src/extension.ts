import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { activateHookwise, type HookwiseExtension } from '@hookwise/adapter-vscode';
import { createScriptedApiHandler, ExampleTask, type ReceivedRequest } from './task';

let hookwise: HookwiseExtension | undefined;
const tasks = new Map<string, { task: ExampleTask; received: ReceivedRequest[]; prompts: number }>();
let lastTaskId: string | undefined;

export interface ExampleRunResult {
  taskId: string;
  answer: string;
  /** The system prompts the model received in this task so far, one per request: hookwise's summary shows up here. */
  systemPrompts: string[];
  /** Every request of the task so far as the model received it: pruned tool results show up here. */
  requests: ReceivedRequest[];
}

async function runPrompt(
  entry: { task: ExampleTask; received: ReceivedRequest[]; prompts: number },
  prompt: string,
): Promise<ExampleRunResult> {
  const answer = await entry.task.run(prompt);
  entry.prompts++;
  void vscode.window.showInformationMessage(`Example task ${entry.task.taskId} (prompt ${entry.prompts}): ${answer}`);
  return {
    taskId: entry.task.taskId,
    answer,
    systemPrompts: entry.received.map((request) => request.systemPrompt),
    requests: entry.received,
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  hookwise = await activateHookwise(context, {
    vscode,
    // "Compact now" (a suggestion's button or the command) condenses the task, as Roo's condense does.
    compact: async (taskId) => {
      await tasks.get(taskId)?.task.condense('manual');
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
      // Kept for "Compact now" and follow-ups until deactivation; a real agent ends a task when the user closes it.
      const entry = { task, received: api.received, prompts: 0 };
      tasks.set(task.taskId, entry);
      lastTaskId = task.taskId;
      return runPrompt(entry, prompt ?? 'Look around the workspace.');
    }),
    // The user answers in the same task, as in Roo's chat: hooks see the task's whole history.
    vscode.commands.registerCommand('hookwiseExample.followUp', async (prompt?: string): Promise<ExampleRunResult | undefined> => {
      const entry = lastTaskId === undefined ? undefined : tasks.get(lastTaskId);
      if (!entry) {
        void vscode.window.showWarningMessage('Run the example task first.');
        return undefined;
      }
      return runPrompt(entry, prompt ?? 'Look again.');
    }),
  );
}

export async function deactivate(): Promise<void> {
  for (const { task } of tasks.values()) await task.dispose();
  tasks.clear();
  lastTaskId = undefined;
  await hookwise?.dispose();
  hookwise = undefined;
}
