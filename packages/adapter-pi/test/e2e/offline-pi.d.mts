export { ensurePi, PI_VERSION } from '../../../../scripts/install-pi.mjs';
export function writeAgentDir(
  agentDir: string,
  options: { baseURL: string; contextWindow?: number; compaction?: { reserveTokens: number; keepRecentTokens: number } },
): void;
export function offlinePiEnv(options: { nodeBinDir: string; agentDir: string; home: string; tmp: string }): Record<string, string>;
export function runPi(
  pi: { node: string; piCli: string },
  prompts: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }>;
export function newestSessionFile(agentDir: string): string;
