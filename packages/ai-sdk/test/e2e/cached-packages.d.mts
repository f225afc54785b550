export const NODE22_VERSION: string;
export const MASTRA_CORE_VERSION: string;
export function cacheDir(name: string, version: string, env?: NodeJS.ProcessEnv): string;
export function ensureNode22(): string;
export function ensureMastraCore(): string;
