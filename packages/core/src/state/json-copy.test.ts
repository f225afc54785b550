import { describe, expect, it } from 'vitest';
import { HookwiseError } from '../errors.js';
import { createMemoryStateStore } from './file-state-store.js';
import { cloneJsonTree, jsonCopy } from './json-copy.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const nested = (depth: number): unknown => (depth === 0 ? { leaf: true } : { child: nested(depth - 1) });
const withProtoKey = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;

// Each value: its copy must equal the JSON round trip exactly (key order included).
const cases: Array<[string, unknown]> = [
  ['a string', 'text'],
  ['a number', 42.5],
  ['-0', -0],
  ['NaN and infinities', { a: Number.NaN, b: [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] }],
  ['booleans and null', [true, false, null]],
  ['undefined properties', { kept: 1, dropped: undefined, nested: { gone: undefined } }],
  ['undefined and holes in arrays', [1, undefined, , 3]], // eslint-disable-line no-sparse-arrays
  ['functions and symbols', { f: () => 1, s: Symbol('x'), list: [() => 1, Symbol('y')] }],
  ['a Date', { at: new Date(0) }],
  ['a class instance', { point: new Point(1, 2) }],
  ['toJSON', { custom: { toJSON: () => 'replaced' } }],
  ['a Map and a Set', { map: new Map([[1, 2]]), set: new Set([1]) }],
  ['boxed primitives', [Object(1), Object('s'), Object(true)]],
  ['a null-prototype object', Object.assign(Object.create(null) as object, { b: 2, a: 1 })],
  ['integer-like keys', { b: 1, 2: 'two', a: 3, 1: 'one' }],
  ['an own __proto__ key', withProtoKey],
  ['a typed array', { bytes: new Uint8Array([1, 2]) }],
  ['a deep tree', nested(150)],
  ['lone surrogates', { s: '\ud800x\udfff' }],
  ['extra array properties', Object.assign([1, 2], { extra: 'ignored' })],
];

describe('jsonCopy', () => {
  it.each(cases)('copies %s as a JSON round trip would', (_name, value) => {
    const copy = jsonCopy(value, roundTrip);
    expect(copy).toStrictEqual(roundTrip(value));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    if (copy !== null && typeof copy === 'object') {
      expect(Object.getPrototypeOf(copy)).toBe(Array.isArray(copy) ? Array.prototype : Object.prototype);
      expect(copy).not.toBe(value);
    }
  });

  it('shares nothing with the value it copied', () => {
    const value = { list: [{ n: 1 }], map: { a: [1] } };
    const copy = jsonCopy(value, roundTrip) as typeof value;
    copy.list[0]!.n = 2;
    copy.map.a.push(2);
    expect(value).toEqual({ list: [{ n: 1 }], map: { a: [1] } });
  });

  it('leaves a value JSON refuses (a cycle, a bigint, a throwing getter) to the round trip, and its error', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = cycle;
    const getter = {
      get broken(): never {
        throw new Error('getter failed');
      },
    };
    for (const value of [cycle, { n: 10n }, getter]) {
      expect(() => jsonCopy(value, (v) => JSON.parse(JSON.stringify(v)))).toThrow(/circular|BigInt|getter failed/);
    }
  });
});

describe('cloneJsonTree', () => {
  it('copies a parsed tree, own __proto__ keys included, sharing nothing', () => {
    const tree = JSON.parse('{"a":[1,{"b":null}],"__proto__":{"x":1},"s":"t"}') as Record<string, unknown>;
    const copy = cloneJsonTree(tree);
    expect(copy).toStrictEqual(tree);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(Object.keys(tree));
    (copy['a'] as unknown[]).push(2);
    expect(tree['a']).toEqual([1, { b: null }]);
  });
});

describe('memory store values', () => {
  it('reads back what a JSON round trip of the written value gives, never the written object', async () => {
    const store = createMemoryStateStore();
    const written = { at: new Date(0), list: [1, undefined], drop: undefined, n: Number.NaN, nested: { k: 'v' } };
    const returned = await store.update('s', 'ns', () => written);
    expect(returned).toBe(written); // update returns fn's own value, as the file store does
    written.nested.k = 'changed after the write';
    const read = await store.read('s', 'ns');
    expect(read).toStrictEqual(JSON.parse(JSON.stringify({ ...written, nested: { k: 'v' } })));
    // fn gets a copy too: mutating it without returning it changes nothing.
    await store.update<typeof read>('s', 'ns', (current) => {
      (current as { n: unknown }).n = 'mutated';
      return read;
    });
    expect(await store.read('s', 'ns')).toStrictEqual(read);
  });

  it('refuses a value JSON cannot hold with HW_STATE_VALUE, as the file store does', async () => {
    const store = createMemoryStateStore();
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    for (const value of [cycle, () => 1, Symbol('x')]) {
      const error = await store.update('s', 'ns', () => value).catch((caught: unknown) => caught);
      expect(HookwiseError.isInstance(error) && error.code).toBe('HW_STATE_VALUE');
    }
    expect(await store.read('s', 'ns')).toBeUndefined();
  });
});
