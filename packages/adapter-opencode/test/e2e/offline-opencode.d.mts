export declare const OPENCODE_VERSION: string;
export declare function opencodeBinary(fromDir: string): string;
export declare function stubConfigFolder(folder: string): void;
export declare function offlineEnv(folders: { home: string; tmp: string }): Record<string, string>;
export declare function standInOpencodeConfig(baseURL: string, permission: Record<string, string>): Record<string, unknown>;
export declare function scratchOpenCodeFolders(root: string): { project: string; home: string; tmp: string };
export declare function runOpenCode(
  binary: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<{ code: number | null; stdout: string; stderr: string; sessionId: string | undefined }>;
export declare function exportOpenCodeSession(
  binary: string,
  sessionId: string,
  file: string,
  options: { cwd: string; env: Record<string, string | undefined> },
): { status: number | null; stderr: string };
