import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PointPayload } from '../points.js';
import { isStateOutage } from '../state/open-state-store.js';
import type { StateStore } from '../state/types.js';
import { PROJECT_SCOPE } from './scopes.js';

/** The engine's own namespace in the state store. */
const CORE_NAMESPACE = 'hookwise-core';

/**
 * A `compact:after` with no `compact:before` before it, this soon after the last one, reports the
 * same compaction again (Claude Code reports one through SessionStart(compact) and PostCompact).
 */
const DUPLICATE_COMPACTION_WINDOW_MS = 2 * 60_000;

/** What the engine keeps per session between `compact:before` and `compact:after`. */
interface CompactionRecord {
  preserved?: string[];
  trigger?: 'manual' | 'auto';
  compactStartedAt?: string;
  /** A compact:before ran and its compact:after has not yet. */
  pending?: boolean;
  lastCompactAfterAt?: number;
}

/** What the engine remembers between emits, in the state store: compactions and the last session. */
export interface SessionRecords {
  /** After `compact:before`: what its hooks preserved, for the matching `compact:after`. */
  compactionStarted(sessionId: string, preserved: string[], trigger: 'manual' | 'auto' | undefined): Promise<void>;
  /**
   * Matches a `compact:after` with its `compact:before`: fills `preserved` and `trigger` from it
   * and consumes it, so a later `compact:after` never receives stale labels. A `compact:after`
   * with no `compact:before`, within a short window of the last one, reports the same compaction
   * again and is dropped ('duplicate'); this is the one place compactions are de-duplicated.
   */
  takeCompaction(sessionId: string, payload: PointPayload<'compact:after'>): Promise<PointPayload<'compact:after'> | 'duplicate'>;
  /** After `session:start`: plugin commands run without a session id apply to this one. */
  sessionStarted(sessionId: string): Promise<void>;
  lastSessionId(): Promise<string | undefined>;
}

/** Never throws: without state a compaction goes unmatched and a command needs a session id. */
export function createSessionRecords(stateStore: StateStore, clock: Clock, logger: Logger): SessionRecords {
  return {
    async compactionStarted(sessionId, preserved, trigger) {
      const record: CompactionRecord = { preserved, trigger, compactStartedAt: new Date(clock.now()).toISOString(), pending: true };
      await stateStore
        .update(sessionId, CORE_NAMESPACE, (current: (CompactionRecord & Record<string, unknown>) | undefined) => ({
          ...(current ?? {}),
          ...record,
        }))
        .catch((error: unknown) => {
          if (!isStateOutage(error)) logger.warn(`could not record what compaction preserved: ${(error as Error).message}`);
        });
    },

    async takeCompaction(sessionId, payload) {
      const now = clock.now();
      let taken: CompactionRecord | undefined;
      let duplicate = false;
      try {
        await stateStore.update(sessionId, CORE_NAMESPACE, (current: (CompactionRecord & Record<string, unknown>) | undefined) => {
          const {
            preserved: _preserved,
            trigger: _trigger,
            compactStartedAt: _started,
            pending,
            lastCompactAfterAt,
            ...rest
          } = current ?? {};
          if (
            !pending &&
            lastCompactAfterAt !== undefined &&
            now - lastCompactAfterAt >= 0 &&
            now - lastCompactAfterAt < DUPLICATE_COMPACTION_WINDOW_MS
          ) {
            duplicate = true;
            return current ?? {};
          }
          taken = pending ? current : undefined;
          return { ...rest, lastCompactAfterAt: now };
        });
      } catch (error) {
        // Without state no match and no de-duplication: reporting a compaction twice beats losing it.
        if (!isStateOutage(error)) logger.warn(`could not read what compaction preserved: ${(error as Error).message}`);
      }
      if (duplicate) return 'duplicate';
      let filled = payload;
      if (filled.preserved === undefined && taken?.preserved) filled = { ...filled, preserved: taken.preserved };
      if (filled.trigger === undefined && taken?.trigger) filled = { ...filled, trigger: taken.trigger };
      return filled;
    },

    async sessionStarted(sessionId) {
      await stateStore
        .update(PROJECT_SCOPE, CORE_NAMESPACE, (current: Record<string, unknown> | undefined) => ({
          ...(current ?? {}),
          lastSessionId: sessionId,
        }))
        .catch((error: unknown) => {
          if (!isStateOutage(error)) logger.warn(`could not record the session id: ${(error as Error).message}`);
        });
    },

    async lastSessionId() {
      const record = await stateStore.read<{ lastSessionId?: string }>(PROJECT_SCOPE, CORE_NAMESPACE).catch(() => undefined);
      return record?.lastSessionId;
    },
  };
}
