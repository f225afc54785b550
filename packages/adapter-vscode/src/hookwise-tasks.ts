import type * as vscode from 'vscode';
import type { VscodeApi } from './vscode-api.js';

/** The task type; the extension must contribute it under `contributes.taskDefinitions`. */
export const HOOKWISE_TASK_TYPE = 'hookwise';

export type HookwiseTaskCommand = 'report' | 'doctor';

export interface HookwiseTaskDefinition extends vscode.TaskDefinition {
  readonly type: typeof HOOKWISE_TASK_TYPE;
  readonly command: HookwiseTaskCommand;
  /** Transcript for `report`; without it the CLI picks its default. */
  readonly transcript?: string;
}

/** How the `hookwise` CLI (@hookwise/cli) is started. */
export interface HookwiseCli {
  command: string;
  args: string[];
}

/** `npx --no hookwise`: runs the project's installed CLI and never downloads a package of that name. */
export const DEFAULT_HOOKWISE_CLI: HookwiseCli = { command: 'npx', args: ['--no', 'hookwise'] };

export interface HookwiseTaskProviderOptions {
  vscode: Pick<VscodeApi, 'Task' | 'ShellExecution' | 'workspace'>;
  cli: HookwiseCli;
  /** Transcript of the active task, offered to `report` when the task definition names none. */
  defaultTranscript: () => string | undefined;
}

const descriptions: Record<HookwiseTaskCommand, string> = {
  report: 'What hookwise did in a session: a Claude Code, OpenCode or pi session file (needs @hookwise/cli)',
  doctor: 'Check the hookwise setup of this workspace (needs @hookwise/cli and a host adapter, e.g. @hookwise/adapter-claude-code)',
};

/**
 * Offers `hookwise: report` and `hookwise: doctor` in the Tasks menu, one pair per workspace
 * folder, as shell tasks running the `hookwise` CLI in that folder.
 */
export function createHookwiseTaskProvider(options: HookwiseTaskProviderOptions): vscode.TaskProvider {
  const { vscode: api } = options;
  const build = (definition: HookwiseTaskDefinition, folder: vscode.WorkspaceFolder): vscode.Task => {
    const transcript = definition.command === 'report' ? (definition.transcript ?? options.defaultTranscript()) : undefined;
    const args = [...options.cli.args, definition.command, ...(transcript ? [transcript] : [])];
    const execution = new api.ShellExecution(options.cli.command, args, { cwd: folder.uri.fsPath });
    const task = new api.Task(definition, folder, definition.command, HOOKWISE_TASK_TYPE, execution, []);
    task.detail = descriptions[definition.command];
    return task;
  };
  return {
    provideTasks: () =>
      (api.workspace.workspaceFolders ?? []).flatMap((folder) =>
        (['report', 'doctor'] as const).map((command) => build({ type: HOOKWISE_TASK_TYPE, command }, folder)),
      ),
    // Called for hookwise tasks the user wrote in tasks.json: give them an execution.
    resolveTask(task) {
      const { definition, scope } = task;
      const folder = typeof scope === 'object' && scope !== null ? scope : api.workspace.workspaceFolders?.[0];
      const known = definition.type === HOOKWISE_TASK_TYPE && (definition['command'] === 'report' || definition['command'] === 'doctor');
      return known && folder ? build(definition as HookwiseTaskDefinition, folder) : undefined;
    },
  };
}
