import * as z from 'zod/mini';
// Only the English locale, not the index of every locale: zod/mini ships without messages so
// that a hook process does not pay for them, and we add just the one we print.
import enLocale from 'zod/v4/locales/en.js';

/** The part of a zod schema (classic or mini) hookwise relies on. */
export interface SchemaLike<Output, Input = Output> {
  safeParse(value: unknown): { success: true; data: Output } | { success: false; error: unknown };
  /** Present on zod schemas; lets TypeScript infer the factory's parameter type. */
  readonly _zod?: { input: Input; output: Output };
}

let localeLoaded = false;

function loadLocale(): void {
  if (localeLoaded) return;
  localeLoaded = true;
  z.config(enLocale());
}

/** `z.prettifyError` of an error whose messages were produced with the English locale. */
export function formatSchemaError(error: unknown): string {
  const issues = (error as { issues?: unknown })?.issues;
  if (!Array.isArray(issues)) return String((error as Error)?.message ?? error);
  return z.prettifyError(error as z.core.$ZodError);
}

/**
 * Parses with a schema and formats failures with `z.prettifyError`. Issue messages are fixed
 * when an issue is made, so after a failure the locale is loaded and the value parsed again.
 */
export function parseWith<T>(
  schema: SchemaLike<T, any>,
  value: unknown,
): { ok: true; data: T } | { ok: false; message: string; error: unknown } {
  const first = schema.safeParse(value);
  if (first.success) return { ok: true, data: first.data };
  if (!localeLoaded) {
    loadLocale();
    const second = schema.safeParse(value);
    if (second.success) return { ok: true, data: second.data };
    return { ok: false, message: formatSchemaError(second.error), error: second.error };
  }
  return { ok: false, message: formatSchemaError(first.error), error: first.error };
}
