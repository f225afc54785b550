export const CLINE_VERSION: string;
export function clineCacheDir(env?: NodeJS.ProcessEnv): string;
export function clineBinary(cacheDir?: string): string;
export function ensureCline(options?: { cacheDir?: string }): { cacheDir: string; cline: string; node: string };
