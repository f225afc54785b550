export { createTaskBinding } from './task-binding.js';
export type {
  AnthropicMessageLike,
  CondenseEnd,
  CondenseStart,
  CondenseStartResult,
  GuardResult,
  ModelRequest,
  ModelRequestResult,
  SubtaskCompletion,
  SubtaskResult,
  TaskBinding,
  TaskBindingEvent,
  TaskBindingOptions,
  TaskCallBase,
  TaskEnd,
  TaskStart,
  ToolResult,
  ToolUse,
  TurnEnd,
  UserMessage,
} from './task-binding.js';
export { activateHookwise, HOOKWISE_COMMANDS } from './activate.js';
export type { ActivateHookwiseOptions, HookwiseExtension } from './activate.js';
export { createHookwiseTaskProvider, DEFAULT_HOOKWISE_CLI, HOOKWISE_TASK_TYPE } from './hookwise-tasks.js';
export type { HookwiseCli, HookwiseTaskCommand, HookwiseTaskDefinition, HookwiseTaskProviderOptions } from './hookwise-tasks.js';
export { createOutputChannelLogger } from './output-logger.js';
export type { ExtensionContextLike, VscodeApi, VscodeCommands, VscodeTasks, VscodeWindow, VscodeWorkspace } from './vscode-api.js';
