import { createEngine, isSafeName, loadConfig, parseWith, type Engine, type HookwiseConfig } from '@hookwise/core';
import { dispatchEvent } from './binding.js';
import { EVENT_POINTS, inputSchemas, isMappedEvent, type AnyHookInput, type MappedEvent } from './events.js';
import type { HookJsonOutput } from './output.js';

/** The part of the Agent SDK's `HookInput` hookwise reads; every SDK hook input satisfies it. */
export interface SdkHookInput {
  hook_event_name: string;
  session_id: string;
}

/** Structurally the SDK's `HookCallback` (checked by a type test against `@anthropic-ai/claude-agent-sdk`). */
export type HookwiseHookCallback = (input: SdkHookInput, toolUseID: string | undefined, options: { signal: AbortSignal }) => Promise<HookJsonOutput>;

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
  /** Seconds per matcher (the SDK's own default applies when unset). */
  timeout?: number;
  /** Receives internal errors (default: one line on stderr). A hook never throws into the SDK. */
  onError?: (error: unknown, event: MappedEvent) => void;
}

/**
 * The `hooks` option for `query()` of `@anthropic-ai/claude-agent-sdk`, built from the same
 * plugins as the command hooks. Each callback runs the mapped lifecycle points in process and
 * returns the same JSON a command hook prints; on PreCompact the compaction instructions go in
 * `systemMessage`, which is how the SDK feeds callback output to the summarizer.
 *
 * Do not also let the session load hookwise's command hooks from settings files
 * (`settingSources` including `project` or `local` where `hookwise init` wrote them), or every
 * plugin runs twice per event: pass `settingSources: []`, or leave the hooks out of those files.
 */
export function hookwiseHooks(options: HookwiseHooksOptions = {}): HookwiseSdkHooks {
  const projectDir = options.projectDir ?? process.cwd();
  let enginePromise: Promise<Engine> | undefined;
  const engine = () =>
    (enginePromise ??= options.engine
      ? Promise.resolve(options.engine)
      : (async () => createEngine({ config: options.config ?? (await loadConfig(projectDir)).config, projectDir, host: 'agent-sdk' }))());
  const report = options.onError ?? ((error: unknown, event: MappedEvent) => process.stderr.write(`hookwise (agent-sdk) ${event}: ${(error as Error)?.message ?? error}\n`));

  const hooks: HookwiseSdkHooks = {};
  for (const event of options.events ?? (Object.keys(EVENT_POINTS) as MappedEvent[])) {
    const callback: HookwiseHookCallback = async (input, _toolUseID, { signal }) => {
      try {
        if (!isMappedEvent(input.hook_event_name) || input.hook_event_name !== event) return {};
        const parsed = parseWith(inputSchemas[event], input);
        if (!parsed.ok) throw new Error(`invalid ${event} input: ${parsed.message}`);
        if (!isSafeName(input.session_id)) throw new Error(`refused session id ${JSON.stringify(String(input.session_id).slice(0, 80))}`);
        const result = await abortable(dispatchEvent(await engine(), event, parsed.data as AnyHookInput), signal);
        if (!result) return {};
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

/** Resolves with undefined once `signal` aborts: the SDK has given up on the hook. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
