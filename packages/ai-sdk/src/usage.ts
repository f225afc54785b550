/**
 * The context a model call had, in tokens, from the usage its provider reported: every input
 * token, cached or not (what the next call starts from, as other hosts count it), without the
 * output just produced.
 *
 * ai 6 and 7 (`LanguageModelV3/V4Usage`): `inputTokens.total` includes cache reads and writes.
 * ai 5 (`LanguageModelV2Usage`): `inputTokens` is a number whose meaning depends on the
 * provider — OpenAI-style APIs count cached tokens in it, `@ai-sdk/anthropic` 2.x does not and
 * reports cache reads as `cachedInputTokens` and cache writes in
 * `providerMetadata.anthropic.cacheCreationInputTokens`.
 */
export function contextTokensOf(usage: unknown, providerMetadata?: unknown): number | undefined {
  const input = (usage as { inputTokens?: unknown } | undefined)?.inputTokens;
  if (typeof input === 'object' && input !== null) {
    const total = (input as { total?: unknown }).total;
    return typeof total === 'number' && total > 0 ? total : undefined;
  }
  if (typeof input !== 'number') return undefined;
  const anthropic = (providerMetadata as { anthropic?: { cacheCreationInputTokens?: unknown } } | undefined)?.anthropic;
  if (anthropic === undefined) return input > 0 ? input : undefined;
  const cached = (usage as { cachedInputTokens?: unknown }).cachedInputTokens;
  const written = anthropic.cacheCreationInputTokens;
  const total = input + (typeof cached === 'number' ? cached : 0) + (typeof written === 'number' ? written : 0);
  return total > 0 ? total : undefined;
}
