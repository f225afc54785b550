import type { Logger, LogLevel } from '@hookwise/core';
import { createLevelLogger, type LogEntry } from '@hookwise/core/host';
import type * as vscode from 'vscode';

type LogChannel = Pick<vscode.LogOutputChannel, 'error' | 'warn' | 'info' | 'debug'>;

/**
 * A core Logger writing to a VS Code log output channel. The channel adds time and level and
 * has its own level filter (the user's "Set Log Level"); `level` is the config's `logLevel`,
 * applied first. A stack goes on lines of its own so it reads as a stack, not as JSON.
 */
export function createOutputChannelLogger(channel: LogChannel, options: { level?: LogLevel; prefix?: string } = {}): Logger {
  const prefix = options.prefix ? `[${options.prefix}] ` : '';
  return createLevelLogger((entry) => channel[entry.level](`${prefix}${lineOf(entry)}`), options.level ?? 'debug');
}

/** The entry's text, but with a stack on lines of its own after the other details. */
function lineOf(entry: LogEntry): string {
  if (entry.details === undefined || !('stack' in entry.details)) return entry.text;
  const { stack, ...rest } = entry.details;
  const line = Object.keys(rest).length > 0 ? `${entry.message} ${safeJson(rest)}` : entry.message;
  return typeof stack === 'string' && stack !== '' ? `${line}\n${stack}` : line;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, inner) => (inner instanceof Error ? { name: inner.name, message: inner.message } : inner));
  } catch {
    return '[unserialisable details]';
  }
}
