import { joinText } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import { parseSlashCommand } from '@hookwise/core/messages';
import { readRolloutTail, rolloutUsageFields } from '@hookwise/core/codex';
import {
  compactTrigger,
  EventDispatch,
  sessionSource,
  type DispatchResult,
  type HookOutputFormat,
  type PointFields,
} from '@hookwise/core/command-hook';
import type { AnyHookInput, HookInputOf, MappedEvent } from './events.js';

/** The adapter's own state namespace (per session). */
export const ADAPTER_NAMESPACE = 'hookwise-codex';

/** Codex's word for the compact action: its own slash command (TUI). */
const CODEX_WORDING = { compact: 'Consider /compact now.' };

/** Which events accept which output fields (Codex 0.169.0's hook output schemas; none replaces a tool output). */
const FORMAT: HookOutputFormat = {
  context: new Set<MappedEvent>(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse']),
  noNotice: new Set<MappedEvent>(['SessionEnd']),
  decision: new Set<MappedEvent>(['UserPromptSubmit', 'PostToolUse', 'Stop']),
  deny: new Set<MappedEvent>(['PreToolUse']),
  cap: 9_999,
};

/** A context a PostCompact left for SessionStart(compact) older than this is of another compaction. */
const AFTER_COMPACT_MAX_AGE_MS = 10 * 60_000;

/** Runs the lifecycle points a Codex event maps to and renders what the plugins decided in the form the event accepts. */
export async function dispatchEvent(engine: Engine, event: MappedEvent, input: AnyHookInput): Promise<DispatchResult> {
  // Codex names the model on every event: no need to remember it per session.
  const common = EventDispatch.commonOf(input);
  if (typeof input.model === 'string') common.model = input.model;
  const dispatch = new EventDispatch(engine, common, {
    namespace: ADAPTER_NAMESPACE,
    wording: CODEX_WORDING,
    contextUsage: { read: readRolloutTail, fieldsOf: rolloutUsageFields },
  });
  switch (event) {
    case 'SessionStart': {
      const start = input as HookInputOf<'SessionStart'>;
      const source = sessionSource(start.source);
      await dispatch.run('session:start', { source });
      if (source === 'compact') {
        // PostCompact came first and its context went nowhere: Codex keeps only this event's.
        const kept = await dispatch.take('compact:after', AFTER_COMPACT_MAX_AGE_MS);
        if (kept) dispatch.result.context = joinText(dispatch.result.context, kept, 'context');
        else await dispatch.run('compact:after', {});
      }
      break;
    }
    case 'UserPromptSubmit': {
      // Codex sends a typed `/name args` to the model as text (custom prompts expand in the TUI
      // first): the command is what the prompt names; a plugin checks that it has a file.
      const prompt = (input as HookInputOf<'UserPromptSubmit'>).prompt;
      const command = parseSlashCommand(prompt);
      await dispatch.run('prompt:submit', { prompt, ...(command ? { command } : {}) });
      break;
    }
    case 'PreToolUse': {
      const tool = input as HookInputOf<'PreToolUse'>;
      await dispatch.run('tool:before', {
        toolName: tool.tool_name,
        input: tool.tool_input,
        ...(tool.tool_use_id ? { toolUseId: tool.tool_use_id } : {}),
      });
      break;
    }
    case 'PostToolUse': {
      const tool = input as HookInputOf<'PostToolUse'>;
      const payload: PointFields<'tool:after'> = { toolName: tool.tool_name, input: tool.tool_input, output: tool.tool_response, ok: true };
      if (tool.tool_use_id) payload.toolUseId = tool.tool_use_id;
      // A transformed output has nowhere to go: Codex lets no hook replace it.
      await dispatch.run('tool:after', payload);
      break;
    }
    case 'PreCompact': {
      await dispatch.run('compact:before', { trigger: compactTrigger((input as HookInputOf<'PreCompact'>).trigger) ?? 'auto' });
      break;
    }
    case 'PostCompact': {
      const trigger = compactTrigger((input as HookInputOf<'PostCompact'>).trigger);
      const merged = await dispatch.emit('compact:after', trigger ? { trigger } : {});
      if (merged?.context) await dispatch.keep('compact:after', merged.context);
      dispatch.absorb(merged ? { ...merged, context: undefined } : undefined);
      break;
    }
    case 'SubagentStop': {
      const stop = input as HookInputOf<'SubagentStop'>;
      // A sub-agent's result reaches the orchestrator as Codex passes it: the hand-off is observed, not replaced.
      const merged = await dispatch.emit('phase:end', {
        output: stop.last_assistant_message ?? '',
        ...(stop.agent_id ? { taskId: stop.agent_id } : {}),
        ...(stop.agent_type ? { phase: stop.agent_type, agentType: stop.agent_type } : {}),
        ...(stop.agent_transcript_path ? { agentTranscriptPath: stop.agent_transcript_path } : {}),
      });
      dispatch.absorb(merged ? { ...merged, context: undefined } : undefined);
      break;
    }
    case 'Stop': {
      const stop = input as HookInputOf<'Stop'>;
      await dispatch.run('agent:stop', {
        ...(stop.last_assistant_message ? { lastMessage: stop.last_assistant_message } : {}),
        ...(stop.stop_hook_active !== undefined ? { stopHookActive: stop.stop_hook_active } : {}),
      });
      break;
    }
    case 'SessionEnd': {
      await dispatch.run('session:end', { reason: (input as HookInputOf<'SessionEnd'>).reason ?? 'other' });
      break;
    }
  }
  // `codex exec` shows no systemMessage: a notice on a tool call (a compaction suggestion) also
  // goes to the model, which can tell the user.
  const result = dispatch.result;
  if ((event === 'PreToolUse' || event === 'PostToolUse') && result.notice)
    result.context = joinText(result.context, result.notice, 'context');
  return dispatch.render(event, FORMAT);
}
