import { joinText, type HookFailure, type MergedOutcome, type PointName } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import { EventDispatch, sessionSource, type ContextUsageReader, type PointFields } from '@hookwise/core/command-hook';
import { parseSlashCommand } from '@hookwise/core/messages';
import { contextUsageFields, readLastAssistantText, readTranscriptTail, type TranscriptTail } from '@hookwise/core/claude-code';
import type { AnyHookInput, HookInputOf, MappedEvent } from './events.js';
import { CLAUDE_CODE_WORDING, noticeOf, renderOutput, type RenderedOutput } from './output.js';

/** The adapter's own state namespace (per session): the compaction trigger, model, held prompt, hand-offs. */
export const ADAPTER_NAMESPACE = 'hookwise-claude-code';
/** Tools that run a sub-agent: `Task` before Claude Code renamed it, `Agent` after. */
export const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);
/** Hand-offs older than this are dropped: the orchestrator has long consumed them. */
const HANDOFF_TTL_MS = 6 * 60 * 60 * 1000;

interface AdapterState {
  model?: string;
  /**
   * A prompt that starts like a slash command, held back until Claude Code says it ran the
   * command (UserPromptExpansion) or moves on without it (any later event).
   */
  pendingPrompt?: { prompt: string; at: number };
  /** When a binding that gets no SessionStart (the Agent SDK) first started this session. */
  startedAt?: number;
  compaction?: { trigger?: 'manual' | 'auto'; startedAt?: string };
  handoffs?: Record<string, { summary?: string; context?: string; at: number }>;
}

export interface DispatchResult {
  rendered: RenderedOutput;
  /** Hook failures (the engine has already logged them); hosts may show them. */
  errors: HookFailure[];
  /** Lifecycle points that ran. */
  points: PointName[];
}

type PointInputOf<P extends PointName> = PointFields<P>;
type Dispatch = EventDispatch<AdapterState>;

/** Claude Code's transcript tail: the context size, and a compaction boundary's sizes. */
const TRANSCRIPT_USAGE: ContextUsageReader<TranscriptTail> = { read: readTranscriptTail, fieldsOf: contextUsageFields };

export interface DispatchOptions {
  /**
   * Emit `session:start` with this source before the event: for a session whose SessionStart
   * the host never delivered (Agent SDK callbacks get none at startup or resume).
   */
  startSession?: 'startup' | 'resume';
  /** The host's deadline: hooks still running when it aborts are abandoned (see `Engine.emit`). */
  signal?: AbortSignal;
}

/**
 * Runs the lifecycle points an event maps to and renders what the plugins decided in the
 * form the event accepts. Shared by the command hook and the Agent SDK binding. Hook
 * failures never throw (the engine reports and skips them); adapter state errors are
 * reported as errors and otherwise ignored.
 */
export async function dispatchEvent(
  engine: Engine,
  event: MappedEvent,
  input: AnyHookInput,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  const dispatch: Dispatch = new EventDispatch<AdapterState>(engine, EventDispatch.commonOf(input), {
    namespace: ADAPTER_NAMESPACE,
    wording: engine.host === 'claude-code' ? CLAUDE_CODE_WORDING : undefined,
    contextUsage: TRANSCRIPT_USAGE,
    signal: options.signal,
  });
  const { errors, result } = dispatch;

  if (options.startSession && event !== 'SessionStart')
    dispatch.absorb(await dispatch.emit('session:start', { source: options.startSession }));
  // A slash prompt held back on UserPromptSubmit that Claude Code did not expand: the command
  // does not exist (or is not loaded), so the prompt went to the model as plain text.
  if (event !== 'UserPromptExpansion' && engine.has('prompt:submit')) {
    const held = await takePendingPrompt(dispatch);
    if (held !== undefined) {
      const merged = await dispatch.emit('prompt:submit', { prompt: held });
      // Its context belonged to a turn that has started; only the notice still makes sense.
      if (merged?.notice) result.notice = joinText(result.notice, noticeOf(merged, engine.host), 'notice');
    }
  }

  switch (event) {
    case 'SessionStart': {
      const start = input as HookInputOf<'SessionStart'>;
      if (start.model) await dispatch.update((state) => ({ ...state, model: start.model }));
      const source = sessionSource(start.source);
      dispatch.absorb(
        await dispatch.emit('session:start', {
          source,
          ...(start.model ? { model: start.model } : {}),
          ...(typeof start.context_tokens === 'number' && start.context_tokens >= 0 ? { contextTokens: start.context_tokens } : {}),
        }),
      );
      if (source === 'compact') dispatch.absorb(await emitCompactAfter(dispatch, {}));
      break;
    }
    case 'UserPromptSubmit': {
      const prompt = (input as HookInputOf<'UserPromptSubmit'>).prompt;
      // `/x` fires UserPromptSubmit and then, only when Claude Code really runs the command,
      // UserPromptExpansion. So a slash prompt is held back: the expansion emits it once, with
      // the command; without one, the next event emits it as a plain prompt. Blocking such a
      // prompt happens on the expansion (which Claude Code lets hooks block).
      if (engine.has('prompt:submit') && parseSlashCommand(prompt)) {
        const now = engine.services.clock.now();
        if (await dispatch.update((state) => ({ ...state, pendingPrompt: { prompt, at: now } }))) break;
      }
      dispatch.absorb(await dispatch.emit('prompt:submit', { prompt }));
      break;
    }
    case 'UserPromptExpansion': {
      const expansion = input as HookInputOf<'UserPromptExpansion'>;
      const args = expansion.command_args ?? '';
      const held = engine.has('prompt:submit') ? await takePendingPrompt(dispatch) : undefined;
      dispatch.absorb(
        await dispatch.emit('prompt:submit', {
          prompt: expansion.prompt ?? held ?? `/${expansion.command_name}${args ? ` ${args}` : ''}`,
          command: { name: expansion.command_name, args },
        }),
      );
      break;
    }
    case 'PreToolUse': {
      const tool = input as HookInputOf<'PreToolUse'>;
      const payload: PointInputOf<'tool:before'> = { toolName: tool.tool_name, input: tool.tool_input };
      if (tool.tool_use_id) payload.toolUseId = tool.tool_use_id;
      dispatch.absorb(await dispatch.emit('tool:before', payload));
      break;
    }
    case 'PostToolUse': {
      const tool = input as HookInputOf<'PostToolUse'>;
      const payload: PointInputOf<'tool:after'> = {
        toolName: tool.tool_name,
        input: tool.tool_input,
        output: tool.tool_response,
        ok: true,
      };
      if (tool.tool_use_id) payload.toolUseId = tool.tool_use_id;
      if (typeof tool.duration_ms === 'number' && tool.duration_ms >= 0) payload.durationMs = tool.duration_ms;
      const after = await dispatch.emit('tool:after', payload);
      dispatch.absorb(after);
      // tool:after transforms the output: Claude Code applies a replacement through updatedToolOutput.
      if (after?.value !== undefined) result.updatedToolOutput = after.value;
      if (SUBAGENT_TOOLS.has(tool.tool_name)) {
        const handoff = await takeHandoff(dispatch, agentIdOf(tool.tool_response));
        if (handoff?.context) result.context = joinText(result.context, handoff.context, 'context');
        if (handoff?.summary !== undefined) result.updatedToolOutput = replaceAgentOutput(tool.tool_response, handoff.summary);
      }
      break;
    }
    case 'PostToolUseFailure': {
      const tool = input as HookInputOf<'PostToolUseFailure'>;
      const error = typeof tool.error === 'string' ? tool.error : tool.error === undefined ? 'tool failed' : JSON.stringify(tool.error);
      dispatch.absorb(
        await dispatch.emit('tool:after', {
          toolName: tool.tool_name,
          input: tool.tool_input,
          output: error,
          ok: false,
          error,
          ...(tool.tool_use_id ? { toolUseId: tool.tool_use_id } : {}),
          ...(typeof tool.duration_ms === 'number' && tool.duration_ms >= 0 ? { durationMs: tool.duration_ms } : {}),
        }),
      );
      break;
    }
    case 'PreCompact': {
      const compact = input as HookInputOf<'PreCompact'>;
      const trigger = compact.trigger === 'manual' ? 'manual' : 'auto';
      await dispatch.update((state) => ({
        ...state,
        compaction: { trigger, startedAt: new Date(engine.services.clock.now()).toISOString() },
      }));
      dispatch.absorb(
        await dispatch.emit('compact:before', {
          trigger,
          ...(compact.custom_instructions ? { instructions: compact.custom_instructions } : {}),
        }),
      );
      break;
    }
    case 'PostCompact': {
      const compact = input as HookInputOf<'PostCompact'>;
      dispatch.absorb(
        await emitCompactAfter(dispatch, {
          ...(compact.trigger === 'manual' || compact.trigger === 'auto' ? { trigger: compact.trigger } : {}),
          ...(compact.compact_summary ? { summary: compact.compact_summary } : {}),
        }),
      );
      break;
    }
    case 'SubagentStop': {
      const stop = input as HookInputOf<'SubagentStop'>;
      // Claude Code 2.1.330 runs compaction as a sub-agent with an empty agent_type. No Agent
      // tool call waits for its result, so it is no phase of the user's work and leaves no hand-off.
      if (stop.agent_type === '') break;
      const output =
        stop.last_assistant_message ??
        (stop.agent_transcript_path ? await readLastAssistantText(stop.agent_transcript_path) : undefined) ??
        '';
      const merged = await dispatch.emit('phase:end', {
        output,
        ...(stop.agent_id ? { taskId: stop.agent_id } : {}),
        ...(stop.agent_type ? { phase: stop.agent_type, agentType: stop.agent_type } : {}),
        ...(stop.agent_transcript_path ? { agentTranscriptPath: stop.agent_transcript_path } : {}),
      });
      // The summary and context are for the orchestrator, which sees them on PostToolUse of the
      // Agent tool; given to the sub-agent here, context would only make it keep going.
      if (merged && stop.agent_id && (merged.value !== undefined || merged.context)) {
        const agentId = stop.agent_id;
        const now = engine.services.clock.now();
        await dispatch.update((state) => {
          const handoffs = Object.fromEntries(Object.entries(state.handoffs ?? {}).filter(([, entry]) => now - entry.at < HANDOFF_TTL_MS));
          handoffs[agentId] = {
            ...(merged.value !== undefined ? { summary: merged.value as string } : {}),
            ...(merged.context ? { context: merged.context } : {}),
            at: now,
          };
          return { ...state, handoffs };
        });
      }
      if (merged?.notice) result.notice = noticeOf(merged, engine.host);
      break;
    }
    case 'Stop': {
      const stop = input as HookInputOf<'Stop'>;
      const merged = await dispatch.emit('agent:stop', {
        ...(stop.last_assistant_message ? { lastMessage: stop.last_assistant_message } : {}),
        ...(stop.stop_hook_active !== undefined ? { stopHookActive: stop.stop_hook_active } : {}),
      });
      dispatch.absorb(merged);
      // Context on Stop makes Claude continue the turn; once it already continues because of a
      // Stop hook, more context could loop, so it is dropped (a block still passes: Claude Code caps those).
      if (stop.stop_hook_active) delete result.context;
      break;
    }
    case 'SessionEnd': {
      dispatch.absorb(await dispatch.emit('session:end', { reason: (input as HookInputOf<'SessionEnd'>).reason ?? 'other' }));
      break;
    }
  }
  return { rendered: renderOutput(event, result), errors, points: dispatch.points };
}

/**
 * Emits `compact:after` with the trigger PreCompact saw. SessionStart(source=compact) and
 * PostCompact both report a compaction, and either may be missing depending on the Claude Code
 * version and mode: both emit, and core's engine runs the hooks once per compaction.
 */
async function emitCompactAfter(
  dispatch: Dispatch,
  fields: { trigger?: 'manual' | 'auto'; summary?: string },
): Promise<MergedOutcome | undefined> {
  if (!dispatch.engine.has('compact:after')) return undefined;
  const trigger = fields.trigger ?? (await dispatch.state())?.compaction?.trigger;
  return dispatch.emit('compact:after', { ...(trigger ? { trigger } : {}), ...(fields.summary ? { summary: fields.summary } : {}) });
}

async function updateState(
  engine: Engine,
  sessionId: string,
  errors: HookFailure[],
  change: (state: AdapterState) => AdapterState,
): Promise<boolean> {
  try {
    await engine.services.stateStore.update<AdapterState>(sessionId, ADAPTER_NAMESPACE, (current) => change(current ?? {}));
    return true;
  } catch (error) {
    errors.push({
      pluginName: 'hookwise',
      hookName: 'adapter-state',
      kind: 'error',
      message: `could not update adapter state: ${(error as Error).message}`,
    });
    return false;
  }
}

/**
 * Records that hookwise started `sessionId` and says whether it had already (`resume`: a session
 * an earlier process saw, e.g. the SDK's `resume` option) or not (`startup`).
 */
export async function markSessionStarted(engine: Engine, sessionId: string, errors: HookFailure[]): Promise<'startup' | 'resume'> {
  let source: 'startup' | 'resume' = 'startup';
  const at = engine.services.clock.now();
  await updateState(engine, sessionId, errors, (state) => {
    if (state.startedAt !== undefined) source = 'resume';
    return { ...state, startedAt: at };
  });
  return source;
}

/** Removes and returns the held-back slash prompt, if any (a plain read first: usually there is none). */
async function takePendingPrompt(dispatch: Dispatch): Promise<string | undefined> {
  if (!(await dispatch.state())?.pendingPrompt) return undefined;
  let held: string | undefined;
  await dispatch.update((state) => {
    if (!state.pendingPrompt) return state;
    held = state.pendingPrompt.prompt;
    const { pendingPrompt: _taken, ...rest } = state;
    return rest;
  });
  return held;
}

async function takeHandoff(dispatch: Dispatch, agentId: string | undefined): Promise<{ summary?: string; context?: string } | undefined> {
  if (!agentId) return undefined;
  let taken: { summary?: string; context?: string } | undefined;
  await dispatch.update((state) => {
    const entry = state.handoffs?.[agentId];
    if (!entry) return state;
    taken = entry;
    const { [agentId]: _removed, ...rest } = state.handoffs!;
    return { ...state, handoffs: rest };
  });
  return taken;
}

function agentIdOf(response: unknown): string | undefined {
  const agentId = typeof response === 'object' && response !== null ? (response as { agentId?: unknown }).agentId : undefined;
  return typeof agentId === 'string' ? agentId : undefined;
}

/**
 * The Agent tool's output with its text replaced by the hand-off summary. Claude Code 2.1.330
 * shapes it as `{ agentId, content: [{ type: "text", text }], totalToolUseCount, … }`; the rest is kept.
 */
export function replaceAgentOutput(response: unknown, summary: string): unknown {
  if (
    typeof response === 'object' &&
    response !== null &&
    !Array.isArray(response) &&
    Array.isArray((response as { content?: unknown }).content)
  ) {
    return { ...(response as Record<string, unknown>), content: [{ type: 'text', text: summary }] };
  }
  return summary;
}
