import type { SchemaLike } from './schema.js';

/**
 * A plain-code parse of a point's payload, for the engine's hot path: the same result as the
 * zod schema's for every payload it accepts, a few times cheaper (a replay emits some 500
 * points per report, a host one per event). It never decides a payload is bad: whatever it
 * does not accept (a wrong type, a missing field, a schema part it does not know) goes to the
 * schema, which gives the result, or the error, it always gave.
 *
 * It is built from the schema itself (zod's `_zod.def`: object shapes, strings, numbers with
 * bounds, booleans, enums, optional, unknown, arrays, custom checks), once per schema on first
 * use, so the points table stays the one source of what a payload holds; a schema part it does
 * not know makes the whole schema take zod's path.
 */
export type FastParse = (value: Record<string, unknown>) => Record<string, unknown> | undefined;

/** A parser of one value: its parsed value, or NO when it may be invalid (zod decides). */
type Part = (value: unknown) => unknown;
const NO: unique symbol = Symbol('no');

interface ZodLike {
  _zod: { def: ZodDef; optin?: string; optout?: string };
}
interface ZodDef {
  type: string;
  checks?: Array<{ _zod: { def: { check: string; value?: unknown; inclusive?: boolean; minimum?: unknown } } }>;
  coerce?: boolean;
  innerType?: ZodLike;
  element?: ZodLike;
  shape?: Record<string, ZodLike>;
  catchall?: ZodLike;
  entries?: Record<string, unknown>;
  fn?: (value: unknown) => unknown;
}

const built = new WeakMap<object, FastParse | null>();

/** The fast parse of `schema`, or undefined when the schema has a part it does not know. */
export function fastParserFor(schema: SchemaLike<unknown>): FastParse | undefined {
  let parser = built.get(schema);
  if (parser === undefined) {
    const part = compile(schema as unknown as ZodLike);
    parser = part && (schema as unknown as ZodLike)._zod.def.type === 'object' ? (value) => {
      const parsed = part(value);
      return parsed === NO ? undefined : (parsed as Record<string, unknown>);
    } : null;
    built.set(schema, parser);
  }
  return parser ?? undefined;
}

function compile(schema: ZodLike | undefined): Part | undefined {
  const def = schema?._zod?.def;
  if (!def || def.coerce) return undefined;
  switch (def.type) {
    case 'string': {
      const min = checksOf(def, (check) => (check.check === 'min_length' && typeof check.minimum === 'number' ? check.minimum : undefined));
      if (min === undefined) return undefined;
      const least = Math.max(0, ...min);
      return (value) => (typeof value === 'string' && value.length >= least ? value : NO);
    }
    case 'number': {
      const bounds = checksOf(def, (check) => (check.check === 'greater_than' && typeof check.value === 'number' ? { value: check.value, inclusive: check.inclusive === true } : undefined));
      if (bounds === undefined) return undefined;
      return (value) => {
        if (typeof value !== 'number' || !Number.isFinite(value)) return NO;
        for (const bound of bounds) if (bound.inclusive ? !(value >= bound.value) : !(value > bound.value)) return NO;
        return value;
      };
    }
    case 'boolean':
      return def.checks?.length ? undefined : (value) => (typeof value === 'boolean' ? value : NO);
    case 'unknown':
      return def.checks?.length ? undefined : (value) => value;
    case 'enum': {
      if (def.checks?.length || !def.entries) return undefined;
      const allowed = new Set(Object.values(def.entries));
      return (value) => ((typeof value === 'string' || typeof value === 'number') && allowed.has(value) ? value : NO);
    }
    case 'optional': {
      const inner = def.checks?.length ? undefined : compile(def.innerType);
      return inner && ((value) => (value === undefined ? undefined : inner(value)));
    }
    case 'custom': {
      const fn = def.fn;
      if (typeof fn !== 'function' || def.checks?.length) return undefined;
      return (value) => (fn(value) === true ? value : NO);
    }
    case 'array': {
      const element = def.checks?.length ? undefined : compile(def.element);
      if (!element) return undefined;
      const check = def.element?._zod.def.type === 'custom' && !def.element._zod.def.checks?.length ? def.element._zod.def.fn : undefined;
      if (check) {
        // A request's history: one direct check per message (the element's own parse would add
        // a call per message, and a replay checks some 70,000), then one `slice` for the copy.
        return (value) => {
          if (!Array.isArray(value)) return NO;
          for (let index = 0; index < value.length; index++) {
            const item = value[index] as unknown;
            // undefined may be a hole, which zod's copy fills: zod decides.
            if (item === undefined || check(item) !== true) return NO;
          }
          return value.slice();
        };
      }
      return (value) => {
        if (!Array.isArray(value)) return NO;
        const length = value.length;
        // A loop, not `every`: holes must be checked too. Elements usually parse to themselves
        // (a request's messages): then the copy is one `slice`.
        let same = true;
        for (let index = 0; index < length; index++) {
          const item = value[index] as unknown;
          const parsed = element(item);
          if (parsed === NO) return NO;
          // An accepted undefined may be a hole, which zod's copy fills: copy one by one then.
          if (parsed !== item || parsed === undefined) same = false;
        }
        if (same) return value.slice();
        const copy = new Array<unknown>(length);
        for (let index = 0; index < length; index++) copy[index] = element(value[index]);
        return copy;
      };
    }
    case 'object':
      return compileObject(def);
    default:
      return undefined;
  }
}

/** Every check of `def` read by `read`; undefined when one is of a kind `read` does not know. */
function checksOf<T>(def: ZodDef, read: (check: { check: string; value?: unknown; inclusive?: boolean; minimum?: unknown }) => T | undefined): T[] | undefined {
  const out: T[] = [];
  for (const check of def.checks ?? []) {
    const known = read(check._zod.def);
    if (known === undefined) return undefined;
    out.push(known);
  }
  return out;
}

/**
 * zod's object parse, for shapes of known parts: declared keys first, in shape order (an absent
 * optional one left out, an absent required one refused), then, for a loose object, every other
 * key of the input as it is (`for…in`, as zod walks it; `__proto__` left out, as zod does).
 */
function compileObject(def: ZodDef): Part | undefined {
  if (def.checks?.length || !def.shape) return undefined;
  const catchall = def.catchall?._zod.def;
  if (catchall !== undefined && (catchall.type !== 'unknown' || catchall.checks?.length)) return undefined;
  const loose = catchall !== undefined;
  const keys = Object.keys(def.shape);
  if (Object.getOwnPropertySymbols(def.shape).length > 0 || keys.includes('__proto__')) return undefined;
  const fields: Array<{ key: string; parse: Part; mayBeAbsent: boolean }> = [];
  for (const key of keys) {
    const schema = def.shape[key]!;
    const parse = compile(schema);
    if (!parse) return undefined;
    fields.push({ key, parse, mayBeAbsent: schema._zod.optin === 'optional' && schema._zod.optout === 'optional' });
  }
  const declared = new Set(keys);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO;
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      if (!(field.key in input)) {
        if (field.mayBeAbsent) continue;
        return NO;
      }
      const parsed = field.parse(input[field.key]);
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
