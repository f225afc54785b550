// `llm:before` for an in-process host whose request messages core can point back to, through a
// session's conversion (core's `createPartConversion`): converted when a hook listens, the
// hooks' edits written back onto copies.
import type { Logger } from '../logger.js';
import type { Message } from '../messages/message-model.js';
import type { ConvertedParts, PartConversion } from '../messages/part-edits.js';
import type { HostSession } from './host-session.js';

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

export { createPartConversion, type PartConversion, type PartConversionSpec } from '../messages/part-edits.js';
