import { fromTypedPartMessages, stringify, typedPartConversion } from '@hookwise/core/messages';
import type { AgentMessage as ClineMessage } from '@cline/shared';

// Cline's `beforeModel` hands hooks `AgentMessage`s, the AI SDK's typed parts (core's
// part-messages); a `read_files` output is an array, sent to the provider as its JSON text.

/** A tool output as the text the provider is sent. */
export const outputText = (output: unknown): string => stringify(output ?? '');

/** Cline's summary of what a compaction removed: `metadata.kind` `compaction_summary` (agentic) or `compaction` (basic). */
const isCompactionSummary = (message: ClineMessage): boolean =>
  message.metadata?.['kind'] === 'compaction_summary' || message.metadata?.['kind'] === 'compaction';

/** The plain conversion; {@link clineConversion} gives the same. */
export const fromClineMessages = (messages: readonly ClineMessage[]) => fromTypedPartMessages(messages, isCompactionSummary);

/** One session's conversion: the unchanged prefix of Cline's fresh JSON copy keeps its core messages. */
export const clineConversion = () => typedPartConversion(isCompactionSummary);

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The newest compaction the request shows. Cline 3.0.65 stamps the agentic summary `{kind:
 * 'compaction_summary', tokensBefore, summary, generatedAt}` and a basic compaction's first kept
 * message `{kind: 'compaction', reason, messagesRemoved}`, stored with the session: the key holds
 * across requests, sandbox restarts and resumes.
 */
export function compactionOf(messages: readonly ClineMessage[]) {
  const message = messages.findLast(isCompactionSummary);
  if (!message) return undefined;
  const metadata = message.metadata!;
  const tokensBefore = count(metadata['tokensBefore']);
  const stamp =
    metadata['kind'] === 'compaction_summary'
      ? (metadata['generatedAt'] ?? message.id)
      : `${String(metadata['reason'])}:${String(metadata['messagesRemoved'])}`;
  return {
    key: `${String(metadata['kind'])}:${String(stamp)}:${tokensBefore ?? ''}`,
    trigger: metadata['reason'] === 'manual_compaction' ? ('manual' as const) : ('auto' as const),
    tokensBefore,
    summary: typeof metadata['summary'] === 'string' ? metadata['summary'] : undefined,
  };
}

/** The request's size as Cline estimates it (JSON at 3 characters a token): the context after a compaction. */
export function estimatedTokens(systemPrompt: string, messages: readonly ClineMessage[]): number {
  let chars = systemPrompt.length;
  for (const message of messages) chars += JSON.stringify(message).length;
  return Math.ceil(chars / 3);
}

/** Hookwise's texts as a `<hookwise>` part of the first user message (after a compaction, Cline's summary). */
export function withHookwiseText(messages: readonly ClineMessage[], texts: readonly string[]): readonly ClineMessage[] {
  const index = messages.findIndex((message) => message.role === 'user');
  if (texts.length === 0 || index === -1) return messages;
  const head = messages[index]!;
  const text = `<hookwise>\n${texts.join('\n\n')}\n</hookwise>`;
  return messages.with(index, { ...head, content: [...head.content, { type: 'text', text }] });
}
