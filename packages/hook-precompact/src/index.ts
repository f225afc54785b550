import { precompact } from './plugin.js';

export { precompact, loadIntent } from './plugin.js';
export type { LoadedIntent } from './plugin.js';
export { PLUGIN_NAME } from './meta.js';
export { DEFAULT_BUDGET_CHARS, DEFAULT_MUTATING_TOOLS, DEFAULT_AGILEFLOW_STATE_PATH, DEFAULT_LEDGER_PATH, optionsSchema } from './options.js';
export type { PrecompactOptions, PrecompactOptionsInput, CommandsOptions, IntentOptions, HandoffOptions as HandoffPluginOptions } from './options.js';
export { extractCompactSummary, readFrontMatterType, cutWithMarker } from './compact-summary.js';
export { DEFAULT_COMMAND_FOLDERS, assertCommandName, findCommandFile, displayCommandName } from './command-files.js';
export type { CommandFolder, CommandLookup } from './command-files.js';
export { activateCommand, deactivateCommand, listActiveCommands, clearActiveCommands, readAgileflowCommands } from './active-commands.js';
export type { ActiveCommand, ActivateOptions, AgileflowCommand } from './active-commands.js';
export { buildPreservedBlock, collectCommandSections, PRESERVED_HEADER } from './preserved-block.js';
export type { CommandSection, IntentSection, PreservedBlock, CollectedCommands } from './preserved-block.js';
export { selectIntent, clearIntent, getSelectedIntent, readLedger, fromAgentTraceEntry, mergeTraces, targetFilesOf } from './intent-trace.js';
export type { TraceEntry, StoredTraceEntry, LedgerRead } from './intent-trace.js';
export { summarizeIntent, intentStatistics } from './intent-summary.js';
export type { IntentStatistics } from './intent-summary.js';
export { summarizeHandoff, findJsonObject } from './handoff-summary.js';
export type { HandoffFields, HandoffInput, HandoffSummary, HandoffOptions } from './handoff-summary.js';
export type { StateTarget } from './state.js';

// JSON configs name plugins by package and call the default export.
export default precompact;
