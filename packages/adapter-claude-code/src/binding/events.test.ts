import type { SchemaLike } from '@hookwise/core';
import { parseWith } from '@hookwise/core/host';
import { describe, expect, it } from 'vitest';
import { EVENT_POINTS, POINT_EVENTS, inputSchemas, isMappedEvent, parseHookInput, type MappedEvent } from './events.js';

describe('the Claude Code event map (one table)', () => {
  it('derives the events init registers per point from the same table', () => {
    expect(POINT_EVENTS).toEqual({
      'session:start': ['SessionStart'],
      'prompt:submit': ['UserPromptSubmit', 'UserPromptExpansion'],
      'tool:before': ['PreToolUse'],
      'tool:after': ['PostToolUse', 'PostToolUseFailure'],
      'llm:before': [],
      'compact:before': ['PreCompact'],
      'compact:after': ['SessionStart', 'PostCompact'],
      'phase:end': ['PostToolUse', 'SubagentStop'],
      'agent:stop': ['Stop'],
      'session:end': ['SessionEnd'],
    });
  });

  it('registers every event for every point it feeds', () => {
    for (const [event, points] of Object.entries(EVENT_POINTS)) {
      expect(isMappedEvent(event)).toBe(true);
      for (const point of points) expect(POINT_EVENTS[point]).toContain(event);
    }
    expect(isMappedEvent('Notification')).toBe(false);
  });
});

describe('parseHookInput: the quick check agrees with the zod schemas', () => {
  const probes: unknown[] = ['text', '', 0, 42, -1.5, Number.POSITIVE_INFINITY, Number.NaN, true, false, null, {}, [], { a: 1 }];
  // Valid for every event (each takes the others' required fields as unknown ones).
  const base: Record<string, unknown> = { session_id: 's1', tool_name: 'Bash', prompt: 'hi', command_name: 'x', extra: { kept: true } };

  it('accepts and rejects exactly what the event schema does, field by field, and keeps unknown fields', () => {
    for (const event of Object.keys(EVENT_POINTS) as MappedEvent[]) {
      const fields = [...Object.keys(inputSchemas[event].def.shape), 'extra'];
      for (const field of fields) {
        for (const probe of [...probes, undefined]) {
          const input = { ...base, [field]: probe };
          if (probe === undefined) delete input[field];
          const quick = parseHookInput(event, input);
          const zod = parseWith(inputSchemas[event] as SchemaLike<unknown, unknown>, input);
          expect({ event, field, probe, ok: quick.ok }).toEqual({ event, field, probe, ok: zod.ok });
          if (quick.ok && zod.ok) expect(quick.data).toEqual(zod.data);
          if (!quick.ok && !zod.ok) expect(quick.message).toBe(zod.message);
        }
      }
    }
  });

  it("refuses what is not an object with the schema's message", () => {
    for (const raw of [null, [], 'text', 3]) {
      const result = parseHookInput('PostToolUse', raw);
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.message).toBe((parseWith(inputSchemas.PostToolUse, raw) as { message: string }).message);
    }
  });
});
