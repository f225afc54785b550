import type { HookwiseConfig } from './config.js';

/** Identity function that gives a config file its types (its own module: the main entry loads nothing of config loading). */
export function defineConfig(config: HookwiseConfig): HookwiseConfig {
  return config;
}
