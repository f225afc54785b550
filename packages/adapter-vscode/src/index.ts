export * from './task-binding.js';
export * from './activate.js';
export * from './hookwise-tasks.js';
export * from './output-logger.js';
export type * from './vscode-api.js';
