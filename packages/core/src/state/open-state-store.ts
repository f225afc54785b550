// The one place a host's state store is chosen: files under the project by default, Redis when
// a deployment says so. Every host gets it through the engine (and the AI SDK binding).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { HookwiseConfig } from '../config.js';
import { HookwiseError, type StateCorruptError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createFileStateStore, type FlushableStateStore } from './file-state-store.js';
import { createRedisStateStore } from './redis-state-store.js';

export interface OpenStateStoreOptions {
  projectDir: string;
  config: Pick<HookwiseConfig, 'state' | 'stateTtlSeconds' | 'stateDir'>;
  logger: Logger;
  /** Where `HOOKWISE_STATE_URL` is read (default `process.env`). */
  env?: Record<string, string | undefined>;
  onOutage?: (error: HookwiseError | undefined) => void;
  onCorrupt?: (error: StateCorruptError) => void;
}

/** The state store the config (or `HOOKWISE_STATE_URL`, which wins) asks for; files when neither names one. */
export function openStateStore(options: OpenStateStoreOptions): FlushableStateStore & { close?(): Promise<void> } {
  const url = stateUrl(options.config, options.env);
  if (url === undefined) {
    return createFileStateStore({
      directory: path.resolve(options.projectDir, options.config.stateDir ?? '.hookwise'),
      logger: options.logger,
      ...(options.onCorrupt ? { onCorrupt: options.onCorrupt } : {}),
    });
  }
  return createRedisStateStore({
    url,
    project: stateProject(url, options.projectDir),
    logger: options.logger,
    ...(options.config.stateTtlSeconds !== undefined ? { ttlSeconds: options.config.stateTtlSeconds } : {}),
    ...(options.onOutage ? { onOutage: options.onOutage } : {}),
    ...(options.onCorrupt ? { onCorrupt: options.onCorrupt } : {}),
  });
}

/** The shared store is away: it reported the outage once, so whoever meets it again says nothing. */
export const isStateOutage = (error: unknown): boolean => HookwiseError.isInstance(error) && error.code === 'HW_STATE_UNAVAILABLE';

/** `HOOKWISE_STATE_URL`, else the config's `state`; undefined for files. */
export function stateUrl(config: Pick<HookwiseConfig, 'state'>, env: Record<string, string | undefined> = process.env): string | undefined {
  const fromEnv = env.HOOKWISE_STATE_URL?.trim();
  return fromEnv ? fromEnv : config.state;
}

/**
 * The key prefix instances of one app share: the URL's `?project=`, else the `name` in the
 * project's package.json (the same on every instance, wherever it is deployed), else the
 * project folder's name.
 */
export function stateProject(url: string, projectDir: string): string {
  try {
    const named = new URL(url).searchParams.get('project');
    if (named) return named;
  } catch {
    // ioredis reports the URL itself
  }
  try {
    const name = (JSON.parse(readFileSync(path.join(projectDir, 'package.json'), 'utf8')) as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  } catch {
    // no package.json: the folder's name
  }
  return path.basename(path.resolve(projectDir));
}
