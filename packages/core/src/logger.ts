export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

export interface Logger {
  error(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  debug(message: string, details?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

/**
 * Logs one line per message to a writer (stderr by default). Hook processes must keep stdout
 * for the one JSON object Claude Code reads, so the default never touches stdout.
 */
export function createLogger(options: { level?: LogLevel; write?: (line: string) => void; prefix?: string } = {}): Logger {
  const level = rank[options.level ?? 'warn'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const prefix = options.prefix ?? 'hookwise';
  const emit = (name: Exclude<LogLevel, 'silent'>) => (message: string, details?: Record<string, unknown>) => {
    if (rank[name] > level) return;
    write(`${prefix} ${name}: ${message}${details && Object.keys(details).length > 0 ? ` ${safeJson(details)}` : ''}`);
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
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
