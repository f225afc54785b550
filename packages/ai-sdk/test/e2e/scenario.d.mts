export const SYSTEM: string;
export const RULE: string;
export const MODEL_ID: string;
export const PRUNE_OPTIONS: { keepRecent: number; protectTokens: number; minimumTokens: number };
export function fileText(file: string): string;
