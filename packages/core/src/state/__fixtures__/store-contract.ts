import { describe, expect, it } from 'vitest';
import { UnsafeNameError } from '../../errors.js';
import { createSessionState } from '../file-state-store.js';
import type { StateStore } from '../types.js';

/** What every state store does (files, memory, Redis): the contract hosts and plugins rely on. */
export const hostileNames = ['../x', 'a/b', '/etc/passwd', 'a\u0000b', 'x'.repeat(300), '..', '.', 'C:\\x', 'a b', ''];

export function sharedBehaviour(name: string, makeStore: () => StateStore): void {
  describe(`${name}: shared behaviour`, () => {
    it('reads undefined, then what update wrote, and clears a namespace or the whole session', async () => {
      const store = makeStore();
      expect(await store.read('session-1', 'plugin')).toBeUndefined();
      expect(await store.update<{ n: number }>('session-1', 'plugin', (current) => ({ n: (current?.n ?? 0) + 1 }))).toEqual({ n: 1 });
      expect(await store.update<{ n: number }>('session-1', 'plugin', (current) => ({ n: (current?.n ?? 0) + 1 }))).toEqual({ n: 2 });
      await store.update('session-1', 'other', () => 'kept');
      expect(await store.read('session-1', 'plugin')).toEqual({ n: 2 });

      await store.clear('session-1', 'plugin');
      expect(await store.read('session-1', 'plugin')).toBeUndefined();
      expect(await store.read('session-1', 'other')).toBe('kept');

      await store.clear('session-1');
      expect(await store.read('session-1', 'other')).toBeUndefined();
    });

    it('keeps sessions and namespaces (including @scope/name) apart', async () => {
      const store = makeStore();
      await store.update('session-a', '@scope/name', () => 1);
      await store.update('session-a', 'scope/name', () => 2);
      await store.update('session-b', '@scope/name', () => 3);
      expect(await store.read('session-a', '@scope/name')).toBe(1);
      expect(await store.read('session-a', 'scope/name')).toBe(2);
      expect(await store.read('session-b', '@scope/name')).toBe(3);
    });

    it('hands out copies: mutating a read value does not change the stored one', async () => {
      const store = makeStore();
      await store.update('s', 'ns', () => ({ list: [1] }));
      const first = await store.read<{ list: number[] }>('s', 'ns');
      first?.list.push(2);
      expect(await store.read('s', 'ns')).toEqual({ list: [1] });
    });

    it('leaves the value unchanged when fn throws, and the next update still works', async () => {
      const store = makeStore();
      await store.update('s', 'ns', () => 1);
      await expect(store.update('s', 'ns', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await store.update<number>('s', 'ns', (current) => (current ?? 0) + 1)).toBe(2);
    });

    it('treats undefined from fn as "remove the value"', async () => {
      const store = makeStore();
      await store.update('s', 'ns', () => 1);
      await store.update('s', 'ns', () => undefined);
      expect(await store.read('s', 'ns')).toBeUndefined();
    });

    it('serialises concurrent updates within one process', async () => {
      const store = makeStore();
      await Promise.all(
        Array.from({ length: 25 }, () =>
          store.update<number>('s', 'counter', async (current) => {
            // Yield between read and write, so an unserialised store would lose updates.
            await new Promise((resolve) => setTimeout(resolve, 1));
            return (current ?? 0) + 1;
          }),
        ),
      );
      expect(await store.read('s', 'counter')).toBe(25);
    });

    it.each(hostileNames)('refuses %j as session id and as namespace with UnsafeNameError', async (hostile) => {
      const store = makeStore();
      await expect(store.read(hostile, 'ns')).rejects.toBeInstanceOf(UnsafeNameError);
      await expect(store.update(hostile, 'ns', () => 1)).rejects.toBeInstanceOf(UnsafeNameError);
      await expect(store.clear(hostile)).rejects.toBeInstanceOf(UnsafeNameError);
      if (hostile !== 'a/b') {
        // 'a/b' is a valid namespace (plugin-scoped), just not a valid session id.
        await expect(store.update('s', hostile, () => 1)).rejects.toBeInstanceOf(UnsafeNameError);
      }
    });

    it('binds a session and default namespace with createSessionState', async () => {
      const store = makeStore();
      const state = createSessionState(store, 'session-1', '@hookwise/plugin');
      await state.update<number>((current) => (current ?? 0) + 5);
      await state.update(() => 'elsewhere', 'other');
      expect(await state.read()).toBe(5);
      expect(await store.read('session-1', '@hookwise/plugin')).toBe(5);
      expect(await state.read('other')).toBe('elsewhere');
      await state.clear();
      expect(await state.read()).toBeUndefined();
      expect(() => createSessionState(store, '../escape', 'plugin')).toThrow(UnsafeNameError);
      expect(() => createSessionState(store, 'session', '@/x')).toThrow(UnsafeNameError);
    });
  });
}

