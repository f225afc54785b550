import type { HookFailure, HookwiseConfig } from '@hookwise/core';
import { createHost, deadlineBefore, withDeadline, withDeadlineSignal, type Engine } from '@hookwise/core/host';
import { isSafeName } from '@hookwise/core/plugin';
import { dispatchEvent, markSessionStarted, type DispatchResult } from './binding.js';
import { EVENT_POINTS, isMappedEvent, parseHookInput, type AnyHookInput, type MappedEvent } from './events.js';
import type { HookJsonOutput } from './output.js';

/** The part of the Agent SDK's `HookInput` hookwise reads; every SDK hook input satisfies it. */
export interface SdkHookInput {
  hook_event_name: string;
  session_id: string;
}

/** Structurally the SDK's `HookCallback` (checked by a type test against `@anthropic-ai/claude-agent-sdk`). */
export type HookwiseHookCallback = (
  input: SdkHookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<HookJsonOutput>;

/** Structurally the SDK's `HookCallbackMatcher`. */
export interface HookwiseHookCallbackMatcher {
  matcher?: string;
  hooks: HookwiseHookCallback[];
  /** Seconds, for all hooks of this matcher. */
  timeout?: number;
}

export type HookwiseSdkHooks = Partial<Record<MappedEvent, HookwiseHookCallbackMatcher[]>>;

export interface HookwiseHooksOptions {
  /** The project whose config, state and logs are used. Default: `process.cwd()`. */
  projectDir?: string;
  /** Plugins and hooks to run; default: the project's `hookwise.config.*`. */
  config?: HookwiseConfig;
  /** An engine you built yourself (takes precedence over `config`). */
  engine?: Engine;
  /** Events to bind; default: every event hookwise maps to a lifecycle point. */
  events?: readonly MappedEvent[];
  /**
   * Seconds per matcher (the SDK's own default applies when unset). hookwise stops waiting for
   * its hooks a little before it, and returns what finished.
   */
  timeout?: number;
  /**
   * Receives internal errors and deadline cuts (default: one line on stderr). A hook never
   * throws into the SDK; a failing plugin hook is in the event log, not here.
   */
  onError?: (error: unknown, event: MappedEvent) => void;
}

/**
 * The SDK's matcher timeouts when none is set, in seconds (Agent SDK docs, "Hook timeout"): 30 s
 * for the prompt events, 600 s for the others.
 */
const SDK_DEFAULT_TIMEOUT_S: Partial<Record<MappedEvent, number>> = { UserPromptSubmit: 30, UserPromptExpansion: 30 };
const SDK_FALLBACK_TIMEOUT_S = 600;
/** How many session ids a binding remembers as started; the oldest is forgotten first. */
const STARTED_SESSIONS_MAX = 1024;

/**
 * The `hooks` option for `query()` of `@anthropic-ai/claude-agent-sdk`, built from the same
 * plugins as the command hooks. Each callback runs the mapped lifecycle points in process and
 * returns the same JSON a command hook prints; on PreCompact the compaction instructions go in
 * `systemMessage`, which is how the SDK feeds callback output to the summarizer.
 *
 * What the SDK (0.3.330, Claude Code 2.1.330) delivers differs from command hooks, and the
 * binding makes up for it:
 * - SessionStart reaches callbacks only with `source: "compact"`, SessionEnd never: the binding
 *   emits `session:start` itself on the first callback of a session it has not seen (`startup`,
 *   or `resume` when an earlier process saw it); `session:end` does not run under the SDK.
 * - `/x` fires UserPromptSubmit and, when the command exists, UserPromptExpansion: the binding
 *   runs `prompt:submit` once, with the command only when Claude Code ran it.
 * - Compaction runs as a sub-agent, so SubagentStop fires for it: not a `phase:end`.
 * - A callback the matcher timeout cuts loses its whole output: the binding stops waiting
 *   shortly before, returns what finished, and reports the cut through `onError` and the event log.
 *
 * Keep project commands with `settingSources: ['project']`. If `hookwise init` also wrote
 * command hooks into the settings files the session loads, add `settings: { disableAllHooks: true }`
 * (it turns off settings-file hooks, not these callbacks), or every plugin runs twice per event.
 */
export function hookwiseHooks(options: HookwiseHooksOptions = {}): HookwiseSdkHooks {
  const report =
    options.onError ??
    ((error: unknown, event: MappedEvent) =>
      process.stderr.write(`hookwise (agent-sdk) ${event}: ${(error as Error)?.message ?? error}\n`));
  /** Why the engine is missing when its config failed: told to the next callback's onError. */
  let configError: string | undefined;
  const given = options.engine;
  const host = given
    ? undefined
    : createHost({
        host: 'agent-sdk',
        projectDir: options.projectDir ?? process.cwd(),
        ...(options.config ? { config: options.config } : {}),
        onError: (failure) => {
          if (failure.kind === 'config') configError = failure.message;
        },
      });
  // An engine the app built is there at once: a callback the SDK already aborted still records its cut.
  const engine = (): Promise<Engine | undefined> => (host ? host.engine() : Promise.resolve(given));
  const stillLoading = Symbol('loading');
  const startedSessions = new Set<string>();

  const hooks: HookwiseSdkHooks = {};
  for (const event of options.events ?? (Object.keys(EVENT_POINTS) as MappedEvent[])) {
    const timeoutSeconds = options.timeout ?? SDK_DEFAULT_TIMEOUT_S[event] ?? SDK_FALLBACK_TIMEOUT_S;
    const deadlineMs = deadlineBefore(timeoutSeconds * 1000);
    // hookwise stops waiting before the SDK's matcher timeout (or when the SDK aborts).
    const callback: HookwiseHookCallback = (input, _toolUseID, { signal }) =>
      withDeadlineSignal(deadlineMs, (deadline) => run(input, signal, deadline), { signal });
    const run = async (input: SdkHookInput, signal: AbortSignal | undefined, deadline: AbortSignal): Promise<HookJsonOutput> => {
      const startedAt = performance.now();
      let loaded: Engine | undefined | typeof stillLoading;
      try {
        if (!isMappedEvent(input.hook_event_name) || input.hook_event_name !== event) return {};
        const parsed = parseHookInput(event, input);
        if (!parsed.ok) throw new Error(`invalid ${event} input: ${parsed.message}`);
        if (!isSafeName(input.session_id)) throw new Error(`refused session id ${JSON.stringify(String(input.session_id).slice(0, 80))}`);
        // Loading the config and plugins counts against the deadline too: if it is not done in
        // time this event goes without hooks (the load goes on for the next callback).
        loaded = await withDeadline(engine(), Number.POSITIVE_INFINITY, () => stillLoading, { signal: deadline });
        if (loaded === undefined) {
          if (configError !== undefined) report(new Error(configError), event);
          return {};
        }
        if (loaded === stillLoading) {
          if (signal?.aborted)
            await reportSdkCut(
              await settledValue(engine()),
              event,
              input.session_id,
              timeoutSeconds,
              performance.now() - startedAt,
              report,
            );
          else
            report(
              new Error(
                `the config and plugins were still loading after ${Math.round(performance.now() - startedAt)} ms; ${event} ran without hooks`,
              ),
              event,
            );
          return {};
        }
        const errors: HookFailure[] = [];
        let startSession: 'startup' | 'resume' | undefined;
        if (!startedSessions.has(input.session_id)) {
          if (startedSessions.size >= STARTED_SESSIONS_MAX) startedSessions.delete(startedSessions.values().next().value!);
          startedSessions.add(input.session_id);
          const source = await markSessionStarted(loaded, input.session_id, errors);
          // A delivered SessionStart (compact) runs session:start itself.
          if (event !== 'SessionStart') startSession = source;
        }
        const result: DispatchResult | undefined = await withDeadline(
          dispatchEvent(loaded, event, parsed.data as AnyHookInput, { signal: deadline, ...(startSession ? { startSession } : {}) }),
          Number.POSITIVE_INFINITY,
          () => undefined,
          { signal },
        );
        if (!result) {
          await reportSdkCut(loaded, event, input.session_id, timeoutSeconds, performance.now() - startedAt, report);
          return {};
        }
        for (const failure of [...errors, ...result.errors.filter((failure) => failure.pluginName === 'hookwise')])
          report(new Error(failure.message), event);
        const cut = result.errors.filter((failure) => failure.kind === 'timeout');
        if (deadline.aborted && cut.length > 0 && !signal?.aborted) {
          report(
            new Error(
              `stopped waiting after ${Math.round(performance.now() - startedAt)} ms, before the SDK's ${timeoutSeconds} s matcher timeout; returned what finished; cut: ${cut.map((failure) => `${failure.pluginName} › ${failure.hookName}`).join(', ')}`,
            ),
            event,
          );
        }
        const rendered = result.rendered;
        if (rendered.kind === 'json') return rendered.value;
        if (rendered.kind === 'text') return { systemMessage: rendered.value };
        return {};
      } catch (error) {
        report(error, event);
        return {};
      }
    };
    hooks[event] = [{ hooks: [callback], ...(options.timeout !== undefined ? { timeout: options.timeout } : {}) }];
  }
  return hooks;
}

/** The SDK gave up on a callback (its matcher timeout, or an interrupt): whatever it would have returned is lost. */
async function reportSdkCut(
  engine: Engine | undefined,
  event: MappedEvent,
  sessionId: string,
  timeoutSeconds: number,
  elapsedMs: number,
  report: (error: unknown, event: MappedEvent) => void,
): Promise<void> {
  const message = `the Agent SDK aborted the ${event} callback after ${Math.round(elapsedMs)} ms (its matcher timeout, or an interrupt); its output is lost. hookwise planned for ${timeoutSeconds} s: pass the matcher's timeout as hookwiseHooks({ timeout }) so it returns what finished in time`;
  report(new Error(message), event);
  // Without a loaded engine there is no event log to write to yet.
  if (!engine) return;
  try {
    await engine.services.eventLog.append({
      type: 'hook:error',
      sessionId,
      point: EVENT_POINTS[event][0],
      event,
      pluginName: 'hookwise',
      hookName: 'agent-sdk',
      kind: 'timeout',
      message,
    });
  } catch (error) {
    report(new Error(`could not write the event log: ${(error as Error).message}`), event);
  }
}

/** The promise's value if it has already settled successfully, else undefined (without waiting). */
function settledValue<T>(promise: Promise<T>): Promise<T | undefined> {
  return Promise.race([promise, Promise.resolve(undefined)]).catch(() => undefined);
}
