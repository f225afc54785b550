import type { Logger, LogLevel } from '@hookwise/core';
import type * as vscode from 'vscode';

const rank: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

type LogChannel = Pick<vscode.LogOutputChannel, 'error' | 'warn' | 'info' | 'debug'>;

/**
 * A core Logger writing to a VS Code log output channel. The channel adds time and level and
 * has its own level filter (the user's "Set Log Level"); `level` is the config's `logLevel`,
 * applied first. A stack goes on lines of its own so it reads as a stack, not as JSON.
 */
export function createOutputChannelLogger(channel: LogChannel, options: { level?: LogLevel; prefix?: string } = {}): Logger {
  const limit = rank[options.level ?? 'debug'];
  const prefix = options.prefix ? `[${options.prefix}] ` : '';
  const write = (name: Exclude<LogLevel, 'silent'>) => (message: string, details?: Record<string, unknown>) => {
    if (rank[name] > limit) return;
    const { stack, ...rest } = details ?? {};
    let line = `${prefix}${message}`;
    if (Object.keys(rest).length > 0) line += ` ${safeJson(rest)}`;
    if (typeof stack === 'string' && stack !== '') line += `\n${stack}`;
    channel[name](line);
  };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, inner) => (inner instanceof Error ? { name: inner.name, message: inner.message } : inner));
  } catch {
    return '[unserialisable details]';
  }
}
