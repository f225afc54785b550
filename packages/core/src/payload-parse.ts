import type * as Zod from 'zod/mini';

/**
 * The zod/mini functions the parts build schemas with, given by whoever builds one
 * (point-schemas.ts): this module loads no zod. Named functions, not the namespace, so that
 * bundlers keep only these (the hook CLI's run bundle).
 */
export type ZodApi = Pick<
  typeof Zod,
  | 'array'
  | 'boolean'
  | 'custom'
  | 'enum'
  | 'looseObject'
  | 'minLength'
  | 'nonnegative'
  | 'number'
  | 'object'
  | 'optional'
  | 'positive'
  | 'string'
  | 'unknown'
>;

/**
 * The parts a point's payload is described with (points.ts). Each part gives two things made
 * from the one description: a plain-code parse for the engine's hot path, and its zod schema.
 * The parse gives zod's result for every value it accepts, a few times cheaper (a replay emits
 * some 500 points per report, a host one per event), and builds no zod schema: building one
 * costs a hook process more than the call that uses it. It never decides a value is bad:
 * whatever it does not accept (a wrong type, a missing field) goes to the zod schema, built
 * then, which gives the result, or the error, it always gave. payload-parse.test.ts holds the
 * two to the same results.
 */
export type FastParse = (
  value: Record<string, unknown>,
  defaults?: Readonly<Record<string, unknown>>,
) => Record<string, unknown> | undefined;

/**
 * A parser of one value: its parsed value, or NO when it may be invalid (zod decides). An
 * object's parse also takes `defaults`: values for declared keys the value lacks.
 */
type Parse = (value: unknown, defaults?: Readonly<Record<string, unknown>>) => unknown;
const NO: unique symbol = Symbol('no');

/** One part of a payload: its plain-code parse and its zod schema (built only when asked for, with the zod it is given). */
export interface Part<S extends Zod.ZodMiniType = Zod.ZodMiniType> {
  readonly parse: Parse;
  /** Whether the key may be absent from its object (an optional part, as zod's `optin`/`optout`). */
  readonly mayBeAbsent: boolean;
  readonly schema: (z: ZodApi) => S;
  /** A `custom` part's check (arrays of them get a one-check loop). */
  readonly check?: (value: unknown) => boolean;
}

type Shape = Readonly<Record<string, Part>>;
type SchemasOf<T extends Shape> = { -readonly [K in keyof T]: ReturnType<T[K]['schema']> };

const part = <S extends Zod.ZodMiniType>(
  schema: (z: ZodApi) => S,
  parse: Parse,
  extra: { mayBeAbsent?: boolean; check?: (value: unknown) => boolean } = {},
): Part<S> => ({ parse, schema, mayBeAbsent: extra.mayBeAbsent ?? false, ...(extra.check ? { check: extra.check } : {}) });

/** A string, `z.string()`, at least `minLength` long (`z.minLength`) when given. */
export const string = (minLength?: number) => {
  const least = minLength ?? 0;
  return part(
    (z) => (minLength === undefined ? z.string() : z.string().check(z.minLength(minLength))),
    (value) => (typeof value === 'string' && value.length >= least ? value : NO),
  );
};

/** A finite number, `z.number()`; `'nonnegative'` (≥ 0) or `'positive'` (> 0) when given. */
export const number = (sign?: 'nonnegative' | 'positive') =>
  part(
    (z) => (sign === 'nonnegative' ? z.number().check(z.nonnegative()) : sign === 'positive' ? z.number().check(z.positive()) : z.number()),
    (value) =>
      typeof value === 'number' && Number.isFinite(value) && (sign === 'nonnegative' ? value >= 0 : sign === 'positive' ? value > 0 : true)
        ? value
        : NO,
  );

export const boolean = () =>
  part(
    (z) => z.boolean(),
    (value) => (typeof value === 'boolean' ? value : NO),
  );

/** Any value, `z.unknown()` (its key is still required: an absent one goes to zod). */
export const unknown = () =>
  part(
    (z) => z.unknown(),
    (value) => value,
  );

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => {
  const allowed = new Set<unknown>(values);
  return part(
    (z) => z.enum(values),
    (value) => (typeof value === 'string' && allowed.has(value) ? value : NO),
  );
};

/** A value `check` accepts, `z.custom(check, { message })`. */
export const custom = <T>(check: (value: unknown) => value is T, message: string) =>
  part(
    (z) => z.custom<T>(check, { message }),
    (value) => (check(value) === true ? value : NO),
    { check },
  );

export const optional = <S extends Zod.ZodMiniType>(inner: Part<S>) =>
  part(
    (z) => z.optional(inner.schema(z)),
    (value) => (value === undefined ? undefined : inner.parse(value)),
    { mayBeAbsent: true },
  );

export const array = <S extends Zod.ZodMiniType>(element: Part<S>) => {
  const check = element.check;
  // A request's history: one direct check per message (the element's own parse would add a
  // call per message), then one `slice` for the copy. A host sends the same history again with
  // a message or two more, some 250 messages per request and 200 requests per replay: `seen`
  // keeps, by position, the objects that passed the check in the last array (of any caller; it
  // holds that one history until the next), and an element that is the very object checked at
  // its position is not checked again. The rule this rests on holds across hookwise: a message,
  // once given to hookwise, is never changed in place (a host or a transformer that changes one
  // makes a new object: copy on write). A new object is always checked; a message changed in
  // place after its check is not (payload-parse.test.ts pins both).
  if (check) {
    const seen: unknown[] = [];
    return part(
      (z) => z.array(element.schema(z)),
      (value) => {
        if (!Array.isArray(value)) return NO;
        const length = value.length;
        for (let index = 0; index < length; index++) {
          const item = value[index] as unknown;
          // undefined may be a hole, which zod's copy fills: zod decides.
          if (item === undefined) return NO;
          if (item === seen[index]) continue;
          if (check(item) !== true) return NO;
          seen[index] = item;
        }
        // Positions past this array no longer match anything: forget them (and let their messages go).
        if (seen.length > length) seen.length = length;
        return value.slice();
      },
    );
  }
  const parse = element.parse;
  return part(
    (z) => z.array(element.schema(z)),
    (value) => {
      if (!Array.isArray(value)) return NO;
      const length = value.length;
      // A loop, not `every`: holes must be checked too. Elements usually parse to themselves
      // (a request's messages): then the copy is one `slice`.
      let same = true;
      for (let index = 0; index < length; index++) {
        const item = value[index] as unknown;
        const parsed = parse(item);
        if (parsed === NO) return NO;
        // An accepted undefined may be a hole, which zod's copy fills: copy one by one then.
        if (parsed !== item || parsed === undefined) same = false;
      }
      if (same) return value.slice();
      const copy = new Array<unknown>(length);
      for (let index = 0; index < length; index++) copy[index] = parse(value[index]);
      return copy;
    },
  );
};

/** An object of these fields, unknown keys dropped, `z.object`. */
export const object = <T extends Shape>(shape: T) => part((z) => z.object(schemasOf(shape, z)), parseObject(shape, false));

/** An object of these fields, unknown keys kept, `z.looseObject` (a payload). */
export const looseObject = <T extends Shape>(shape: T) => part((z) => z.looseObject(schemasOf(shape, z)), parseObject(shape, true));

const schemasOf = <T extends Shape>(shape: T, z: ZodApi): SchemasOf<T> =>
  Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, value.schema(z)])) as SchemasOf<T>;

/**
 * zod's object parse: declared keys first, in shape order (an absent optional one left out, an
 * absent required one refused), then, for a loose object, every other key of the input as it is
 * (`for…in`, as zod walks it; `__proto__` left out, as zod does). With `defaults`, the parse of
 * `{ ...defaults, ...value }` without that copy being made (the engine's `projectDir` and `host`
 * under every payload): a declared key the value lacks is taken from `defaults`. The caller
 * gives a plain object (Object.prototype or null as prototype), whose keys `in` and `for…in`
 * see as the spread would.
 */
function parseObject(shape: Shape, loose: boolean): Parse {
  const fields = Object.entries(shape).map(([key, value]) => ({ key, parse: value.parse, mayBeAbsent: value.mayBeAbsent }));
  const declared = new Set(Object.keys(shape));
  return (value, defaults) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO;
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      let source = input;
      if (!(field.key in input)) {
        if (defaults !== undefined && field.key in defaults) source = defaults as Record<string, unknown>;
        else if (field.mayBeAbsent) continue;
        else return NO;
      }
      const parsed = field.parse(source[field.key]);
      if (parsed === NO) return NO;
      out[field.key] = parsed;
    }
    if (loose) {
      for (const key in input) {
        if (declared.has(key) || key === '__proto__') continue;
        out[key] = input[key];
      }
    }
    return out;
  };
}

/**
 * An object part's parse as a payload parser: the parsed copy, or undefined when zod must
 * decide. `defaults` (see parseObject) stand for keys `value` lacks; `value` must then be a
 * plain object.
 */
export function fastParseOf(payload: Part): FastParse {
  const parse = payload.parse;
  return (value, defaults) => {
    const parsed = parse(value, defaults);
    return parsed === NO ? undefined : (parsed as Record<string, unknown>);
  };
}
