import { describe, expect, it } from 'vitest';
import { EVENT_POINTS, POINT_EVENTS, isMappedEvent } from './events.js';

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
