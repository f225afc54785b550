export const NETNS_BRIDGE: string;
export function networkNamespaceAvailable(): boolean;
export function isolatedCommand(
  command: string,
  args: string[],
  isolate: { socketPath: string; port: number } | undefined,
): { command: string; args: string[] };
