import type { HookwiseConfig } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore } from '@hookwise/core/host';
import type { ClineMessage } from '../index.js';
import { createHookwisePlugin } from '../plugin.js';

/**
 * The plugin as Cline's sandbox holds it, for unit tests: set up for session `ses-1`, every hook
 * context passed through JSON the way Cline passes it. What reaches a user is judged by the
 * end-to-end suite against the real Cline; these pin the rules.
 */
export async function fakeCline(config: HookwiseConfig | undefined, options: { hookTimeoutMs?: number; loadError?: Error } = {}) {
  const eventLog = createMemoryEventLog();
  const lines: string[] = [];
  const plugin = createHookwisePlugin(options.hookTimeoutMs ? { hookTimeoutMs: options.hookTimeoutMs } : {}, {
    loadConfig: async () => {
      if (options.loadError) throw options.loadError;
      return config ? { config, file: '/project/hookwise.config.json' } : { config: {}, file: undefined };
    },
    createEngine: (engineOptions) => createEngine({ ...engineOptions, stateStore: createMemoryStateStore(), eventLog }),
    writeLine: (line) => void lines.push(line),
  });
  await plugin.setup({} as never, { session: { sessionId: 'ses-1' }, workspaceInfo: { rootPath: '/project' } });
  const hooks = plugin.hooks as unknown as Record<string, (context: unknown) => Promise<any>>;
  /** Calls a hook with a JSON copy of `context`, and gives a JSON copy of its answer (Cline's IPC). */
  const call = async (hook: string, context: unknown): Promise<any> => {
    const answer = await hooks[hook]!(JSON.parse(JSON.stringify(context)));
    return answer === undefined ? undefined : JSON.parse(JSON.stringify(answer));
  };
  return { plugin, call, eventLog, lines };
}

let counter = 0;
const id = () => `m${++counter}`;
export const user = (text: string): ClineMessage => ({ id: id(), role: 'user', content: [{ type: 'text', text }], createdAt: 0 });
export const readCall = (callId: string, path: string): ClineMessage => ({
  id: id(),
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read_files', input: { files: [{ path }] } }],
  createdAt: 0,
});
export const readResult = (callId: string, path: string, text: string): ClineMessage => ({
  id: id(),
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: callId, toolName: 'read_files', output: [{ query: path, result: text, success: true }] }],
  createdAt: 0,
});
