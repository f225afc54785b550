export { ensureKilo, KILO_VERSION } from '../../../../scripts/install-kilo.mjs';
export function offlineKiloEnv(options: { home: string; tmp: string }): Record<string, string>;
export function standInKiloConfig(baseURL: string, options?: { contextWindow?: number }): string;
export function networkNamespaceAvailable(): boolean;
export interface KiloIsolation {
  socketPath: string;
  port: number;
}
export function kiloCommand(kilo: string, args: string[], isolate?: KiloIsolation): { command: string; args: string[] };
export interface KiloRun {
  code: number | null;
  stdout: string;
  stderr: string;
  sessionId: string | undefined;
}
export function runKilo(
  kilo: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; isolate?: KiloIsolation; timeoutMs?: number },
): Promise<KiloRun>;
export function exportKiloSession(
  kilo: string,
  sessionId: string,
  file: string,
  options: { cwd: string; env: Record<string, string> },
): { status: number | null; stderr: string };
