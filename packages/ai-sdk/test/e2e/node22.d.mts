export const NODE22_VERSION: string;
export function node22CacheDir(env?: NodeJS.ProcessEnv): string;
export function ensureNode22(cacheDir?: string): string;
