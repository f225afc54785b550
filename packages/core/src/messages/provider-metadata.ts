/**
 * Helpers shared by the converters. Each provider keeps its data under its own key of
 * `providerMetadata` (`anthropic`, `openai`, `claudeCode`) so converting to one provider never
 * leaks another provider's fields into the payload.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Fields of `source` not in `known`, or undefined when there are none (keeps parts free of empty objects). */
export function extraFields(source: Record<string, unknown>, known: readonly string[]): Record<string, unknown> | undefined {
  let extras: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    if (known.includes(key)) continue;
    extras ??= {};
    extras[key] = source[key];
  }
  return extras;
}

export function providerData(
  holder: { providerMetadata?: Record<string, unknown> },
  provider: string,
): Record<string, unknown> | undefined {
  const data = holder.providerMetadata?.[provider];
  return isRecord(data) ? data : undefined;
}

/** Sets `providerMetadata[provider]` only when there is something to keep, so round trips stay free of empty keys. */
export function attachProviderData<T extends { providerMetadata?: Record<string, unknown> }>(
  target: T,
  provider: string,
  data: Record<string, unknown> | undefined,
): T {
  if (data && Object.keys(data).length > 0) {
    target.providerMetadata = { ...target.providerMetadata, [provider]: data };
  }
  return target;
}

/** Removes keys whose value is undefined: a converter's own bookkeeping keys must not reach a payload. */
export function withoutUndefined(data: Record<string, unknown>): Record<string, unknown> | undefined {
  let result: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    result ??= {};
    result[key] = value;
  }
  return result;
}
