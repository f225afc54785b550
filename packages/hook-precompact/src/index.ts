import { precompact } from './plugin.js';

// What a config, a script and the README need; the building blocks stay internal.
export { precompact };
export { PLUGIN_NAME } from './meta.js';
export { DEFAULT_MUTATING_TOOLS, optionsSchema } from './options.js';
export type {
  PrecompactOptions,
  PrecompactOptionsInput,
  CommandsOptions,
  IntentOptions,
  HandoffOptions as HandoffPluginOptions,
} from './options.js';
export { extractCompactSummary } from './compact-summary.js';
export { DEFAULT_COMMAND_FOLDERS } from './command-files.js';
export type { CommandFolder } from './command-files.js';
export { activateCommand, deactivateCommand, listActiveCommands, clearActiveCommands } from './active-commands.js';
export type { ActiveCommand, ActivateOptions } from './active-commands.js';
export { selectIntent, clearIntent, getSelectedIntent, readLedger } from './intent-trace.js';
export type { TraceEntry, StoredTraceEntry, LedgerRead } from './intent-trace.js';
export { summarizeIntent } from './intent-summary.js';
export type { IntentStatistics } from './intent-summary.js';
export { summarizeHandoff } from './handoff-summary.js';
export type { HandoffFields, HandoffInput, HandoffSummary, HandoffOptions } from './handoff-summary.js';
export type { StateTarget } from './state.js';

// JSON configs name plugins by package and call the default export.
export default precompact;
