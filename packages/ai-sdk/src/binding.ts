import { randomUUID } from 'node:crypto';
import type { EventLog, HookwiseConfig, Logger, PluginInstance, StateStore } from '@hookwise/core';
import { createHost, type HostErrorReport, type HostNotice } from '@hookwise/core/host';
import { promptConversion } from './prompt.js';

/** A notice for the app's user, with the conversation and the point it came from. */
export type HookwiseNotice = Omit<HostNotice, 'hostText'>;

/** A problem hookwise stepped aside from: the model call went on unchanged (`config`: hookwise is off). */
export type HookwiseErrorReport = Omit<HostErrorReport, 'error'>;

export interface HookwiseMiddlewareOptions {
  /** The conversation this middleware serves (default: a new random id). A call may name another with `providerOptions.hookwise.sessionId`. */
  sessionId?: string;
  /**
   * The project: where `hookwise.config.*` is found (default the working directory) and, when given,
   * where state and the event log are kept (`.hookwise/`); without it they stay in memory.
   */
  projectDir?: string;
  /** Plugins to run, instead of a config file (`[prune(), precompact()]`). */
  plugins?: Array<PluginInstance<any>>;
  /** A whole config (plugins, the project's own hooks, `hookTimeoutMs`…), instead of a config file. */
  config?: HookwiseConfig;
  /** The config file, relative to the project (default: core's lookup of `hookwise.config.*`). */
  configFile?: string;
  /** Called with each notice for the user (a suggestion to compact, a report of a compaction). */
  onNotice?: (notice: HookwiseNotice) => void;
  /** Called with each problem hookwise stepped aside from; they are also in the event log. */
  onError?: (error: HookwiseErrorReport) => void;
  /** The model's context window in tokens, when the model id does not say it (default: core's guess from the model). */
  contextWindow?: number;
  /** Deadline of each hook call in ms (default: the config's `hookTimeoutMs`, else 5,000). */
  hookTimeoutMs?: number;
  /** Where hookwise logs (default: warnings and errors on the console, at the config's `logLevel`). */
  logger?: Logger;
  /** The event log (default: `.hookwise/logs/events.jsonl` with a projectDir, else in memory). */
  eventLog?: EventLog;
  /** The session state store (default: files under `.hookwise/` with a projectDir, else in memory). */
  stateStore?: StateStore;
}

/** What the middleware keeps of a conversation besides the kit's bookkeeping. */
interface AiSdkSession {
  /** User messages of the last prompt seen, and its last user text: a change marks a new turn. */
  userMessages: number;
  lastPrompt?: string;
  /** The conversation's prompt conversion, which keeps what it converted and applied last call. */
  conversion: ReturnType<typeof promptConversion>;
}

/** The host kit behind the middleware (config, sessions, deadline, fail-open, notices); in memory without a projectDir. */
export function createBinding(options: HookwiseMiddlewareOptions) {
  const { onNotice, onError, plugins } = options;
  const host = createHost<AiSdkSession>({
    host: 'ai-sdk',
    projectDir: options.projectDir ?? process.cwd(),
    scope: 'app',
    log: (entry) => console.warn(`[hookwise] ${entry.text}`),
    ephemeral: options.projectDir === undefined,
    logger: options.logger,
    config: options.config || plugins ? { ...options.config, ...(plugins ? { plugins } : {}) } : undefined,
    configFile: options.configFile,
    hookTimeoutMs: options.hookTimeoutMs,
    stateStore: options.stateStore,
    eventLog: options.eventLog,
    notify: onNotice && (({ hostText: _text, ...notice }) => onNotice(notice)),
    onError: onError && (({ error: _error, ...report }) => onError(report)),
    session: () => ({ userMessages: 0, conversion: promptConversion() }),
    fields: { contextWindow: options.contextWindow },
  });
  return { host, defaultSessionId: options.sessionId ?? `ai-sdk-${randomUUID()}` };
}

export type Binding = ReturnType<typeof createBinding>;
