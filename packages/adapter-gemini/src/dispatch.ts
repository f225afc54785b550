import { joinText, type HookFailure, type MergedOutcome, type PointInput, type PointName } from '@hookwise/core';
import { isListening, noticeText, type Engine } from '@hookwise/core/host';
import { parseSlashCommand } from '@hookwise/core/messages';
import { expandedCommand } from './commands.js';
import type { GeminiInput, MappedEvent } from './events.js';
import { compressionsSince, lastUsage, sizeOf } from './session-file.js';

/** The adapter's own state namespace (per session). */
export const ADAPTER_NAMESPACE = 'hookwise-gemini';
/** Gemini's word for the compact action: its own slash command. */
const GEMINI_WORDING = { compact: 'Consider /compress now.' };
/** Gemini 2.x/3.x models' input limit (`tokenLimit`, 0.61.0). */
const GEMINI_WINDOW = 1_048_576;

interface AdapterState {
  model?: string;
  /** A PreCompress seen and not yet judged: the session file's size then, and the prompt size. */
  pending?: { trigger: 'manual' | 'auto'; file: string; offset: number; tokensBefore?: number };
  /** The last compression's snapshot key (see `compressionsSince`). */
  snapshot?: string;
  /** What hooks handed back at the last compaction: added to every later prompt (BeforeAgent). */
  afterCompaction?: string;
  /** A compaction happened mid-turn: the next tool result carries `afterCompaction` too. */
  deliverOnTool?: boolean;
}

/** What the plugins decided for one event, in Gemini's output terms. */
export interface GeminiOutput {
  systemMessage?: string;
  decision?: 'deny';
  reason?: string;
  hookSpecificOutput?: { hookEventName: MappedEvent; additionalContext: string };
}

type PointInputOf<P extends PointName> = Omit<PointInput<P>, 'sessionId'>;

/** Runs the points a Gemini event maps to; returns the JSON to print and the hooks' failures. */
export async function dispatchEvent(
  engine: Engine,
  event: MappedEvent,
  input: GeminiInput,
): Promise<{ output: GeminiOutput; errors: HookFailure[] }> {
  const errors: HookFailure[] = [];
  let context: string | undefined;
  let notice: string | undefined;
  let block: string | undefined;
  let state: AdapterState = {};
  const stateFailed = (what: string, error: unknown) =>
    errors.push({
      pluginName: 'hookwise',
      hookName: 'adapter-state',
      kind: 'error',
      message: `could not ${what} adapter state: ${(error as Error).message}`,
    });
  try {
    state = (await engine.services.stateStore.read<AdapterState>(input.session_id, ADAPTER_NAMESPACE)) ?? {};
  } catch (error) {
    stateFailed('read', error);
  }
  const changes: Partial<AdapterState> = {};
  // On --resume SessionStart names a new stub file (0.61.0); later events name the session's file.
  const file = event === 'SessionStart' ? undefined : input.transcript_path;
  const common = { cwd: input.cwd, transcriptPath: file, model: state.model, contextWindow: GEMINI_WINDOW };
  let usage: { tokens: number } | undefined | null = null;

  const emit = async <P extends PointName>(point: P, payload: PointInputOf<P>): Promise<MergedOutcome<P> | undefined> => {
    if (!isListening(engine, point)) return undefined;
    const full = { sessionId: input.session_id, ...definedOf(common), ...payload } as Record<string, unknown>;
    // The context size from the session file, only for plugins that ask for it (every tool call pays the read).
    if (file && full.contextTokens === undefined && engine.needs(point, 'contextUsage')) {
      if (usage === null) usage = lastUsage(file);
      if (usage) Object.assign(full, { contextTokens: usage.tokens, contextSource: 'usage' });
    }
    const merged = await engine.emit(point, full as unknown as PointInput<P>);
    errors.push(...merged.errors);
    context = joinText(context, merged.context, 'context');
    for (const item of merged.notices ?? [])
      notice = joinText(notice, noticeText({ text: item.statement, actions: item.actions }, GEMINI_WORDING), 'notice');
    block ??= merged.block?.reason;
    return merged;
  };

  // A PreCompress earlier in the session: judge it now, from what the session file says happened since.
  if (state.pending && event !== 'SessionStart') {
    const { trigger, tokensBefore } = state.pending;
    const found = compressionsSince(state.pending.file, state.pending.offset).at(-1);
    changes.pending = undefined;
    if (found && found.snapshot !== state.snapshot) {
      changes.snapshot = found.snapshot;
      await emit('compact:before', {
        trigger,
        ...(tokensBefore !== undefined ? { contextTokens: tokensBefore, contextSource: 'usage' } : {}),
      });
      context = undefined; // Gemini gives no hook a say in its summary: what must survive is handed back below.
      const after = await emit('compact:after', {
        trigger,
        ...(tokensBefore !== undefined ? { tokensBefore } : {}),
        ...(found.tokensAfter !== undefined ? { tokensAfter: found.tokensAfter, contextSource: 'usage' } : {}),
      });
      changes.afterCompaction = after?.context?.trim() ? after.context : undefined;
      changes.deliverOnTool = changes.afterCompaction !== undefined;
      context = undefined;
    }
  }
  const kept = 'afterCompaction' in changes ? changes.afterCompaction : state.afterCompaction;

  switch (event) {
    case 'SessionStart': {
      const source = input.source === 'resume' || input.source === 'clear' ? input.source : 'startup';
      if (source !== 'resume') changes.afterCompaction = undefined;
      await emit('session:start', { source });
      // Gemini 0.61.0's --resume drops every prompt a SessionStart hook prefixed: context goes on BeforeAgent.
      context = undefined;
      break;
    }
    case 'BeforeAgent': {
      const prompt = input.prompt ?? '';
      // A custom command reaches hooks expanded; a typed `/x` that Gemini does not know goes to the model as is.
      const command = expandedCommand(prompt, engine.projectDir, process.env.HOME) ?? parseSlashCommand(prompt);
      await emit('prompt:submit', { prompt, ...(command ? { command: { name: command.name, args: command.args } } : {}) });
      context = joinText(context, kept, 'context');
      changes.deliverOnTool = false; // this prompt carries it
      break;
    }
    case 'BeforeTool':
      await emit('tool:before', { toolName: input.tool_name!, input: input.tool_input });
      context = undefined; // BeforeTool has no additionalContext in Gemini
      break;
    case 'AfterTool': {
      const response = input.tool_response as { llmContent?: unknown; error?: unknown } | undefined;
      const failed = response?.error !== undefined && response.error !== null;
      await emit('tool:after', {
        toolName: input.tool_name!,
        input: input.tool_input,
        output: response && 'llmContent' in response ? response.llmContent : response,
        ok: !failed,
        ...(failed ? { error: JSON.stringify(response!.error) } : {}),
      });
      if (state.deliverOnTool || changes.deliverOnTool) {
        context = joinText(kept, context, 'context');
        changes.deliverOnTool = false;
      }
      block = undefined; // a deny replaces the result with an error (see the README): not a trim
      break;
    }
    case 'PreCompress': {
      const offset = sizeOf(input.transcript_path);
      const last = lastUsage(input.transcript_path);
      if (last?.model && last.model !== state.model) changes.model = last.model;
      if (input.transcript_path && offset !== undefined)
        changes.pending = {
          trigger: input.trigger === 'manual' ? 'manual' : 'auto',
          file: input.transcript_path,
          offset,
          ...(last ? { tokensBefore: last.tokens } : {}),
        };
      break;
    }
    case 'AfterAgent':
      await emit('agent:stop', {
        ...(input.prompt_response ? { lastMessage: input.prompt_response } : {}),
        ...(input.stop_hook_active !== undefined ? { stopHookActive: input.stop_hook_active } : {}),
      });
      context = undefined;
      block = undefined;
      break;
    case 'SessionEnd':
      await emit('session:end', { reason: input.reason ?? 'other' });
      break;
  }
  if (Object.keys(changes).length > 0) {
    try {
      await engine.services.stateStore.update<AdapterState>(input.session_id, ADAPTER_NAMESPACE, (current) =>
        definedOf({ ...current, ...changes }),
      );
    } catch (error) {
      stateFailed('update', error);
    }
  }
  return { output: render(event, context, notice, block), errors };
}

function definedOf<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}

const nonEmpty = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';

/** Context where Gemini adds it to what the model sees (BeforeAgent, AfterTool); a block where it denies. */
function render(event: MappedEvent, context: string | undefined, notice: string | undefined, block: string | undefined): GeminiOutput {
  const output: GeminiOutput = {};
  if (nonEmpty(notice) && event !== 'SessionEnd') output.systemMessage = notice;
  if (nonEmpty(block) && (event === 'BeforeAgent' || event === 'BeforeTool')) {
    output.decision = 'deny';
    output.reason = block;
  }
  if (nonEmpty(context) && (event === 'BeforeAgent' || event === 'AfterTool'))
    output.hookSpecificOutput = { hookEventName: event, additionalContext: context };
  return output;
}
