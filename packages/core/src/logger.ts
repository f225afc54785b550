export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

export interface Logger {
  error(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  debug(message: string, details?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** One message a logger passes on: its level, text and details, and the two as one line of text. */
export interface LogEntry {
  level: Exclude<LogLevel, 'silent'>;
  message: string;
  details?: Record<string, unknown>;
  /** `message`, then `details` as JSON when there are any: what a plain text log shows. */
  text: string;
}

/**
 * A logger that hands each message at `level` or more severe to `sink`, with its level, so a
 * host can route it to its own log (an editor's output channel, OpenCode's `app.log`) without
 * parsing text. `level` may be a function, read at each message, for a host that learns its
 * level after the logger is made (from the config it loads later). With `stackLines`, a
 * `stack` among the details goes on lines of its own after the text, so a log that shows many
 * lines (an editor's output panel) reads it as a stack, not as one JSON string.
 */
export function createLevelLogger(
  sink: (entry: LogEntry) => void,
  level: LogLevel | (() => LogLevel) = 'warn',
  options: { stackLines?: boolean } = {},
): Logger {
  const fixed = typeof level === 'function' ? undefined : rank[level];
  const emit = (name: Exclude<LogLevel, 'silent'>) => (message: string, details?: Record<string, unknown>) => {
    if (rank[name] > (fixed ?? rank[(level as () => LogLevel)()])) return;
    const hasDetails = details !== undefined && Object.keys(details).length > 0;
    sink({ level: name, message, ...(hasDetails ? { details } : {}), text: hasDetails ? textOf(message, details, options) : message });
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

/** `message` and its details as JSON; with `stackLines`, a stack after them on its own lines. */
function textOf(message: string, details: Record<string, unknown>, options: { stackLines?: boolean }): string {
  if (options.stackLines !== true || !('stack' in details)) return `${message} ${safeJson(details)}`;
  const { stack, ...rest } = details;
  const line = Object.keys(rest).length > 0 ? `${message} ${safeJson(rest)}` : message;
  return typeof stack === 'string' && stack !== '' ? `${line}\n${stack}` : line;
}

/**
 * Logs one line per message to a writer (stderr by default). Hook processes must keep stdout
 * for the one JSON object Claude Code reads, so the default never touches stdout.
 */
export function createLogger(options: { level?: LogLevel; write?: (line: string) => void; prefix?: string } = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const prefix = options.prefix ?? 'hookwise';
  return createLevelLogger((entry) => write(`${prefix} ${entry.level}: ${entry.text}`), options.level ?? 'warn');
}

/** A logger that keeps lines in memory; for tests and for hosts that show them later. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  return Object.assign(logger, { lines });
}

export const silentLogger: Logger = createLogger({ level: 'silent' });

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, inner) => (inner instanceof Error ? { name: inner.name, message: inner.message } : inner));
  } catch {
    return '[unserialisable details]';
  }
}
