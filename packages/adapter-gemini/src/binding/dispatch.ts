import { joinText } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import { parseSlashCommand } from '@hookwise/core/messages';
import { EventDispatch, type DispatchResult, type HookOutputFormat } from '@hookwise/core/command-hook';
import { geminiCompressionsSince, lastGeminiUsage, type GeminiUsage } from '@hookwise/core/gemini';
import { expandedCommand } from './commands.js';
import type { GeminiInput, MappedEvent } from './events.js';

/** The adapter's own state namespace (per session). */
export const ADAPTER_NAMESPACE = 'hookwise-gemini';
/** Gemini's word for the compact action: its own slash command. */
const GEMINI_WORDING = { compact: 'Consider /compress now.' };
/** Gemini 2.x/3.x models' input limit (`tokenLimit`, 0.61.0). */
const GEMINI_WINDOW = 1_048_576;

/**
 * Where Gemini 0.61.0 takes what: context where it reaches the model (BeforeAgent, AfterTool), a
 * deny where it drops the turn or the call. An AfterTool deny would replace the result with an
 * error, which is no trim; no systemMessage on SessionEnd (not awaited).
 */
const FORMAT: HookOutputFormat = {
  context: new Set<MappedEvent>(['BeforeAgent', 'AfterTool']),
  noNotice: new Set<MappedEvent>(['SessionEnd']),
  decision: new Set<MappedEvent>(['BeforeAgent', 'BeforeTool']),
  decisionWord: 'deny',
  deny: new Set(),
  cap: Number.POSITIVE_INFINITY,
};

interface AdapterState {
  model?: string;
  /** What hooks handed back at the last compaction: added to every later prompt (BeforeAgent). */
  afterCompaction?: string;
  /** A compaction happened mid-turn: the next tool result carries `afterCompaction` too. */
  deliverOnTool?: boolean;
}

/** Runs the points a Gemini event maps to and renders what the plugins decided in the form the event accepts. */
export async function dispatchEvent(engine: Engine, event: MappedEvent, input: GeminiInput): Promise<DispatchResult> {
  const common = EventDispatch.commonOf(input);
  common.contextWindow = GEMINI_WINDOW;
  // On --resume SessionStart names a new stub file (0.61.0); later events name the session's file.
  if (event === 'SessionStart') delete common.transcriptPath;
  const dispatch = new EventDispatch<AdapterState>(engine, common, {
    namespace: ADAPTER_NAMESPACE,
    wording: GEMINI_WORDING,
    contextUsage: {
      read: async (file) => lastGeminiUsage(file),
      fieldsOf: (_point, usage: GeminiUsage) => ({ contextTokens: usage.input, contextSource: 'usage' }),
    },
  });
  const state = (await dispatch.state()) ?? {};
  const changes: Partial<AdapterState> = {};
  const result = dispatch.result;

  // A PreCompress earlier in the session: judge it now, from what the session file says happened since.
  const compacted =
    event === 'SessionStart' ? undefined : await dispatch.settleCompaction((file, offset) => geminiCompressionsSince(file, offset).at(-1));
  if (compacted) {
    // Gemini gives no hook a say in its summary: what must survive is handed back on later prompts.
    changes.afterCompaction = compacted.kept;
    changes.deliverOnTool = compacted.kept !== undefined;
  }
  const kept = 'afterCompaction' in changes ? changes.afterCompaction : state.afterCompaction;

  switch (event) {
    case 'SessionStart': {
      const source = input.source === 'resume' || input.source === 'clear' ? input.source : 'startup';
      if (source !== 'resume') changes.afterCompaction = undefined;
      // Its context is not rendered: 0.61.0's --resume drops every prompt a SessionStart hook prefixed.
      await dispatch.run('session:start', { source });
      break;
    }
    case 'BeforeAgent': {
      const prompt = input.prompt ?? '';
      // A custom command reaches hooks expanded; a typed `/x` that Gemini does not know goes to the model as is.
      const command = expandedCommand(prompt, engine.projectDir, process.env.HOME) ?? parseSlashCommand(prompt);
      await dispatch.run('prompt:submit', { prompt, ...(command ? { command: { name: command.name, args: command.args } } : {}) });
      result.context = joinText(result.context, kept, 'context');
      changes.deliverOnTool = false; // this prompt carries it
      break;
    }
    case 'BeforeTool':
      await dispatch.run('tool:before', { toolName: input.tool_name!, input: input.tool_input });
      break;
    case 'AfterTool': {
      const response = input.tool_response as { llmContent?: unknown; error?: unknown } | undefined;
      const failed = response?.error !== undefined && response.error !== null;
      await dispatch.run('tool:after', {
        toolName: input.tool_name!,
        input: input.tool_input,
        output: response && 'llmContent' in response ? response.llmContent : response,
        ok: !failed,
        ...(failed ? { error: JSON.stringify(response!.error) } : {}),
      });
      if (state.deliverOnTool || changes.deliverOnTool) {
        result.context = joinText(kept, result.context, 'context');
        changes.deliverOnTool = false;
      }
      break;
    }
    case 'PreCompress': {
      const last = lastGeminiUsage(input.transcript_path);
      if (last?.model && last.model !== state.model) changes.model = last.model;
      await dispatch.mayCompact(input.trigger === 'manual' ? 'manual' : 'auto', last?.input);
      break;
    }
    case 'AfterAgent':
      await dispatch.run('agent:stop', {
        ...(input.prompt_response ? { lastMessage: input.prompt_response } : {}),
        ...(input.stop_hook_active !== undefined ? { stopHookActive: input.stop_hook_active } : {}),
      });
      break;
    case 'SessionEnd':
      await dispatch.run('session:end', { reason: input.reason ?? 'other' });
      break;
  }
  await dispatch.patch(changes);
  return dispatch.render(event, FORMAT);
}
