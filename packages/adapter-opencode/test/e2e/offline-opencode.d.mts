export declare const OPENCODE_VERSION: string;
export declare function opencodeBinary(fromDir: string): string;
export declare function stubConfigFolder(folder: string): void;
export declare function offlineEnv(folders: { home: string; tmp: string }): Record<string, string>;
export declare function standInOpencodeConfig(baseURL: string, permission: Record<string, string>): Record<string, unknown>;
