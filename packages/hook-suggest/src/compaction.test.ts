import { describe, expect, it } from 'vitest';
import { formatCompactionNotice, reductionPercent } from './compaction.js';

describe('reductionPercent', () => {
  it('is the share removed, one decimal', () => {
    expect(reductionPercent(142_431, 45_263)).toBe(68.2);
    expect(reductionPercent(100, 100)).toBe(0);
    expect(reductionPercent(100, 120)).toBe(-20);
  });

  it('is null while a size is unknown', () => {
    expect(reductionPercent(null, 10)).toBeNull();
    expect(reductionPercent(10, undefined)).toBeNull();
    expect(reductionPercent(0, 0)).toBeNull();
  });
});

describe('formatCompactionNotice', () => {
  it('says when, the sizes before and after, and what was preserved', () => {
    expect(
      formatCompactionNotice({
        completedAt: '2026-02-12T14:48:36.922Z',
        trigger: 'manual',
        tokensBefore: 142_431,
        tokensAfter: 45_263,
        preserved: ['/babysit', 'intent REQ-WEATHER-API-001'],
      }),
    ).toBe(
      'Context compacted (manual) at 2026-02-12 14:48:36 UTC: 142,431 → 45,263 tokens (−68.2%). hookwise preserved: /babysit, intent REQ-WEATHER-API-001.',
    );
  });

  it('says plainly what is not known', () => {
    expect(formatCompactionNotice({ completedAt: 0, trigger: 'auto', tokensBefore: 150_000, preserved: [] })).toBe(
      'Context compacted (auto) at 1970-01-01 00:00:00 UTC: 150,000 tokens before; size after not known yet. hookwise preserved: nothing (no hookwise plugin registered anything to keep).',
    );
    expect(formatCompactionNotice({ completedAt: new Date(0) })).toContain('sizes not reported by the host');
    expect(formatCompactionNotice({ completedAt: 0, tokensAfter: 30_000 })).toContain('30,000 tokens after; size before not known');
  });
});
