import * as z from 'zod/mini';
import { parseWith, type SchemaLike } from '../schema.js';

/**
 * What each field of an event's stdin must be: `string` (required), `string?`, `number?`,
 * `boolean?`, `text?` (an optional string a host sometimes sends as null) or `unknown?`.
 * Unknown fields pass through. One description gives both the zod schemas (for the messages of
 * bad input) and the quick check a hook call makes.
 */
export type FieldKind = 'string' | 'string?' | 'number?' | 'boolean?' | 'text?' | 'unknown?';
export type InputFields = Readonly<Record<string, FieldKind>>;

export type SchemaOfKind = {
  string: z.ZodMiniString;
  'string?': z.ZodMiniOptional<z.ZodMiniString>;
  'number?': z.ZodMiniOptional<z.ZodMiniNumber>;
  'boolean?': z.ZodMiniOptional<z.ZodMiniBoolean>;
  'text?': z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString>>;
  'unknown?': z.ZodMiniOptional<z.ZodMiniUnknown>;
};

const schemaOfKind: { [K in FieldKind]: () => SchemaOfKind[K] } = {
  string: () => z.string(),
  'string?': () => z.optional(z.string()),
  'number?': () => z.optional(z.number()),
  'boolean?': () => z.optional(z.boolean()),
  'text?': () => z.optional(z.nullable(z.string())),
  'unknown?': () => z.optional(z.unknown()),
};

/** The zod schema of a field description. */
export const inputSchemaOf = <F extends InputFields>(fields: F) =>
  z.looseObject(
    Object.fromEntries(Object.entries(fields).map(([name, kind]) => [name, schemaOfKind[kind]()])) as {
      -readonly [K in keyof F]: SchemaOfKind[F[K]];
    },
  );

type ValueOfKind = {
  string: string;
  'string?': string;
  'number?': number;
  'boolean?': boolean;
  'text?': string | null;
  'unknown?': unknown;
};

/** The input type a field description accepts (what its zod schema infers). */
export type InputOf<F extends InputFields> = { -readonly [K in keyof F as F[K] extends 'string' ? K : never]: string } & {
  -readonly [K in keyof F as F[K] extends 'string' ? never : K]?: ValueOfKind[F[K]] | undefined;
} & { [key: string]: unknown };

/** Whether a value passes a field kind, as its zod schema would judge it (z.number() takes finite numbers only). */
function fits(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string?':
      return value === undefined || typeof value === 'string';
    case 'number?':
      return value === undefined || (typeof value === 'number' && Number.isFinite(value));
    case 'boolean?':
      return value === undefined || typeof value === 'boolean';
    case 'text?':
      return value === undefined || value === null || typeof value === 'string';
    case 'unknown?':
      return true;
  }
}

/**
 * An event's input, checked: a plain object whose fields fit is taken as it is, with no zod
 * schema built (the common case, and the one a hook call pays for at start-up: building zod
 * schemas costs more than the call itself); anything else goes through `schema()`, whose message
 * says what is wrong.
 */
export function parseInputFields<T>(
  fields: InputFields,
  schema: () => unknown,
  raw: unknown,
): { ok: true; data: T } | { ok: false; message: string } {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    let fitsAll = true;
    for (const name in fields) {
      if (!fits(fields[name]!, Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined)) {
        fitsAll = false;
        break;
      }
    }
    if (fitsAll) return { ok: true, data: record as T };
  }
  const parsed = parseWith<T>(schema() as SchemaLike<T, unknown>, raw);
  return parsed.ok ? { ok: true, data: parsed.data } : { ok: false, message: parsed.message };
}

/**
 * The input parser of a host: per event, its fields; schemas built on first use, one event at a
 * time, and only for input the quick check refused.
 */
export function createInputParser<M extends Record<string, InputFields>>(fieldsByEvent: M) {
  const built: Partial<Record<keyof M, unknown>> = {};
  const schemaFor = <E extends keyof M>(event: E) =>
    (built[event] ??= inputSchemaOf(fieldsByEvent[event]!)) as ReturnType<typeof inputSchemaOf<M[E]>>;
  return {
    schemaFor,
    parse: <E extends keyof M>(event: E, raw: unknown) =>
      parseInputFields<InputOf<M[E]>>(fieldsByEvent[event]!, () => schemaFor(event), raw),
  };
}

/** Fields every command-hook event of Claude Code and Codex carries. */
export const BASE_INPUT_FIELDS = {
  session_id: 'string',
  transcript_path: 'string?',
  cwd: 'string?',
  hook_event_name: 'string?',
  permission_mode: 'string?',
  agent_id: 'string?',
  agent_type: 'string?',
} as const;
