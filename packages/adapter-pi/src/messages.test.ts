import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromPiMessages, PiConversion } from './messages.js';
import type { PiMessage } from './pi-types.js';

// The messages of a real pi 1.5.2 session (the e2e suite recorded it), in file order.
const recorded: PiMessage[] = readFileSync(new URL('../test/fixtures/pi-1.5.2-session.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { type: string; message?: PiMessage })
  .filter((entry) => entry.type === 'message' && entry.message !== undefined && (entry.message as { role?: string }).role !== 'system')
  .map((entry) => entry.message!);

describe('PiConversion (the same objects across requests) against fromPiMessages (its spec)', () => {
  it('gives what fromPiMessages gives for every growing prefix of a real session, handed over as deep copies', () => {
    expect(recorded.length).toBeGreaterThan(4);
    const conversion = new PiConversion();
    for (let length = 1; length <= recorded.length; length++) {
      const request = structuredClone(recorded.slice(0, length));
      expect(conversion.convert(request)).toEqual(fromPiMessages(request));
    }
  });

  it('reuses the core message of a message equal to the one at the same place last time, and converts anew what changed', () => {
    const conversion = new PiConversion();
    const strange = { role: 'somethingNew', payload: 42 } as unknown as PiMessage;
    const first = conversion.convert(structuredClone([...recorded.slice(0, 3), strange]));
    const changed = structuredClone([...recorded.slice(0, 3), strange]);
    (changed[1] as { content: unknown }).content = 'edited by the user';
    const second = conversion.convert(changed);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    expect(second[3]).toBe(first[3]);
    expect(second).toEqual(fromPiMessages(changed));
    // A shorter history (after a compaction) is converted by place again.
    expect(conversion.convert(structuredClone(recorded.slice(1, 3)))).toEqual(fromPiMessages(recorded.slice(1, 3)));
  });
});
