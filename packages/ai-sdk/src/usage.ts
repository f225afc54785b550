/**
 * The context of a model call in tokens, from its usage: every input token, cached or not (what
 * the next call starts from), without the output. ai 6 and 7: `inputTokens.total`, cache included.
 * ai 5: `inputTokens` counts cached tokens for OpenAI-style APIs, not for `@ai-sdk/anthropic` 2.x,
 * which reports cache reads as `cachedInputTokens` and writes in its `cacheCreationInputTokens`.
 */
export function contextTokensOf(usage: unknown, providerMetadata?: unknown): number | undefined {
  const { inputTokens: input, cachedInputTokens: cached } = (usage ?? {}) as { inputTokens?: unknown; cachedInputTokens?: unknown };
  const written = (providerMetadata as { anthropic?: { cacheCreationInputTokens?: unknown } } | undefined)?.anthropic;
  let total = typeof input === 'object' && input !== null ? (input as { total?: unknown }).total : input;
  if (typeof total !== 'number') return undefined;
  if (typeof input === 'number' && written !== undefined)
    for (const more of [cached, written.cacheCreationInputTokens]) total += typeof more === 'number' ? more : 0;
  return total > 0 ? total : undefined;
}
