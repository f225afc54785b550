import type { Logger, LogLevel } from '@hookwise/core';
import { createLevelLogger } from '@hookwise/core/host';
import type * as vscode from 'vscode';

type LogChannel = Pick<vscode.LogOutputChannel, 'error' | 'warn' | 'info' | 'debug'>;

/**
 * A core Logger writing to a VS Code log output channel. The channel adds time and level and
 * has its own level filter (the user's "Set Log Level"); `level` is the config's `logLevel`,
 * applied first. A stack goes on lines of its own so it reads as a stack, not as JSON.
 */
export function createOutputChannelLogger(channel: LogChannel, options: { level?: LogLevel; prefix?: string } = {}): Logger {
  const prefix = options.prefix ? `[${options.prefix}] ` : '';
  return createLevelLogger((entry) => channel[entry.level](`${prefix}${entry.text}`), options.level ?? 'debug', { stackLines: true });
}
