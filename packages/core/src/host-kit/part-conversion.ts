// `llm:before` for an in-process host whose request messages core can point back to: a session's
// conversion (the origin of each tool call and result, the core messages of an unchanged start
// reused) and a hook's edits written back onto copies, with a memo of what each message became.
import type { Logger } from '../logger.js';
import type { Message, MessagePart } from '../messages/message-model.js';
import {
  applyPartEdits,
  createReusingConverter,
  type AppliedPartMemo,
  type ConvertedParts,
  type PartEditCounts,
  type PartOrigin,
  type PartOriginTable,
  type PartWriter,
} from '../messages/part-edits.js';
import type { HostSession } from './host-session.js';

/** How a host's messages convert, compare and take edits. */
export interface PartConversionSpec<H, P> extends PartWriter<H, P> {
  /** One host message as a core message (undefined: none), recording where its tool parts came from. */
  convert(message: H, index: number, origins: PartOriginTable): Message | undefined;
  /** Whether two host messages convert the same, so the first's core message serves the second. */
  same(a: H, b: H): boolean;
}

/** One session's conversion: each call's messages repeat the last call's and add to them. */
export interface PartConversion<H> {
  convert(messages: readonly H[]): ConvertedParts;
  /** A hook's edits on copies of `messages` (core's `applyPartEdits`, with the session's memo). */
  apply(
    messages: readonly H[],
    converted: ConvertedParts,
    transformed: readonly Message[],
    options?: { toolResults?: boolean },
  ): PartEditCounts & { messages: H[] };
}

export function createPartConversion<H, P>(spec: PartConversionSpec<H, P>): PartConversion<H> {
  const origins = new WeakMap<MessagePart, PartOrigin>();
  const memo: AppliedPartMemo<H> = new WeakMap();
  const reuse = createReusingConverter((message: H, index) => spec.convert(message, index, origins), spec.same, { prefix: true });
  return {
    convert: (messages) => ({ messages: reuse(messages), origins }),
    apply: (messages, converted, transformed, options = {}) => applyPartEdits(messages, converted, transformed, spec, { ...options, memo }),
  };
}

/**
 * `llm:before` on a request: converted only when a hook listens, the hooks' edits written back
 * (`toolResults: false` leaves tool outputs as they are). What has no place in the host's
 * messages is a warning and left out. Gives the messages to send (the very array when nothing
 * changed) and the hooks' context.
 */
export async function emitLlmBefore<H>(
  session: HostSession<any>,
  conversion: PartConversion<H>,
  request: { systemPrompt: string; messages: readonly H[] },
  options: { toolResults?: boolean; logger: Logger },
): Promise<{ messages: readonly H[]; context: string | undefined }> {
  let converted: ConvertedParts | undefined;
  const outcome = await session.emit('llm:before', () => ({
    systemPrompt: request.systemPrompt,
    messages: (converted = conversion.convert(request.messages)).messages,
  }));
  if (outcome?.value === undefined || !converted) return { messages: request.messages, context: outcome?.context };
  const { messages, ...counts } = conversion.apply(request.messages, converted, outcome.value as Message[], options);
  if (counts.editsIgnored > 0)
    options.logger.warn(
      `llm:before asked for ${counts.editsIgnored} edit(s) the host's messages cannot take (added or dropped messages); they were left out`,
    );
  options.logger.debug(
    `llm:before: ${counts.outputsReplaced} tool output(s) and ${counts.inputsReplaced} tool input(s) replaced, ${counts.outputsLeft} output(s) left as they were`,
  );
  return { messages, context: outcome.context };
}
