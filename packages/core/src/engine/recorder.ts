import type { Logger } from '../logger.js';
import type { EventLog, EventRecord } from '../state/types.js';

/** What a hook or command gives `context.record`: a `type`, and any JSON fields. */
export type RecordEntry = { type: string; [key: string]: unknown };

/** Appends a plugin's record to the event log, filled with its plugin name and session id. */
export type Recorder = (pluginName: string, sessionId: string, entry: RecordEntry) => Promise<void>;

/**
 * The one never-throw writer behind `context.record`: the event log is a record for the user,
 * never a reason to fail a hook. A failing write is logged at warn the first time for each
 * plugin (a full disk would otherwise repeat it on every call), then at debug.
 */
export function createRecorder(eventLog: EventLog, logger: Logger): Recorder {
  const warned = new Set<string>();
  return async (pluginName, sessionId, entry) => {
    try {
      await eventLog.append({ sessionId, ...entry, pluginName } as EventRecord);
    } catch (error) {
      const message = `${pluginName}: could not write the event log: ${(error as Error).message}`;
      if (warned.has(pluginName)) logger.debug(message);
      else {
        warned.add(pluginName);
        logger.warn(message);
      }
    }
  };
}
