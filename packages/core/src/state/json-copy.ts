/**
 * Copies of state values for the in-memory store, equal to what a JSON round trip
 * (`JSON.parse(JSON.stringify(value))`, what the file store gives back) would make, without
 * the text in between: the store keeps one private tree per value and copies it on the way in
 * and out. A recursive copy of a small tree costs a fraction of a parse, and a replay reads
 * state on almost every point.
 *
 * The fast copy only takes plain trees: objects with Object.prototype or null as prototype,
 * plain arrays, strings, booleans, finite numbers, `undefined` or omitted object properties. Anything else (a
 * Date, a class instance, `toJSON`, a function, a symbol, `undefined` in an array, a `__proto__`
 * key, a very deep or cyclic tree, a throwing getter) takes the real round trip, so its result
 * and its error are JSON's own.
 */

/** Thrown inside the fast copy when a value needs JSON's own rules. */
const NOT_PLAIN: unique symbol = Symbol('not plain');
/** Deeper than this goes the slow way (which also catches cycles with JSON's own TypeError). */
const MAX_DEPTH = 100;

/**
 * The value `JSON.parse(JSON.stringify(value))` returns, as a new tree sharing nothing with
 * `value`. `roundTrip` is that round trip (with the caller's error for a value JSON cannot
 * hold); it runs when the value is not a plain tree.
 */
export function jsonCopy(value: unknown, roundTrip: (value: unknown) => unknown): unknown {
  try {
    return copyPlain(value, 0);
  } catch {
    // Not a plain tree (NOT_PLAIN), or a getter threw: the round trip meets the same getter and
    // reports it its own way.
    return roundTrip(value);
  }
}

function copyPlain(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0 and NaN / ±Infinity as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
      const prototype = Object.getPrototypeOf(value) as unknown;
      if (prototype === Array.prototype) {
        const source = value as unknown[];
        const length = source.length;
        const copy = new Array<unknown>(length);
        for (let index = 0; index < length; index++) {
          const item = source[index];
          // JSON writes undefined (and holes) in an array as null; rare enough for the slow way.
          if (item === undefined) throw NOT_PLAIN;
          copy[index] = copyPlain(item, depth + 1);
        }
        return copy;
      }
      if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
      const source = value as Record<string, unknown>;
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(source)) {
        const item = source[key];
        if (item === undefined) continue; // JSON leaves the property out
        if (key === '__proto__') throw NOT_PLAIN; // an assignment would set the prototype
        copy[key] = copyPlain(item, depth + 1);
      }
      return copy;
    }
    default:
      // undefined, functions, symbols (left out or refused depending on where) and bigint (refused).
      throw NOT_PLAIN;
  }
}

/**
 * A copy of a tree made by {@link jsonCopy} or `JSON.parse`: only JSON values, so nothing to
 * check but an own `__proto__` key (which `JSON.parse` can make).
 */
export function cloneJsonTree<T>(tree: T): T {
  if (typeof tree !== 'object' || tree === null) return tree;
  if (Array.isArray(tree)) {
    const length = tree.length;
    const copy = new Array<unknown>(length);
    for (let index = 0; index < length; index++) copy[index] = cloneJsonTree(tree[index]);
    return copy as T;
  }
  const source = tree as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: cloneJsonTree(source[key]), enumerable: true, writable: true, configurable: true });
    else copy[key] = cloneJsonTree(source[key]);
  }
  return copy as T;
}
