import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeVscode, fakeWorkspaceFolder, type FakeVscode } from '../../../packages/adapter-vscode/src/__fixtures__/fake-vscode.js';

const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(exampleDir, 'dist', 'extension.js');
// Inside the example, so the workspace's config resolves @hookwise/core from the example's node_modules.
const workspaceDir = path.join(exampleDir, 'test-artifacts', `workspace-${process.pid}`);

// hook-suggest's tool-call suggestion (after 3 calls) carries the plugin's own actions; the
// project's hooks add an intent summary and tell how much a compaction saved.
const config = `
import { defineConfig, definePlugin } from '@hookwise/core';
import suggest from '@hookwise/hook-suggest';

// The project's own plugin, written as one object.
const example = definePlugin({
  meta: { name: 'example', version: '1.0.0' },
  on: {
    'llm:before': (payload) => (payload.intentId ? { context: '## Active intent\\n' + payload.intentId } : undefined),
    'compact:after': (payload) => ({ notice: 'condensed ' + payload.tokensBefore + ' → ' + payload.tokensAfter + ' tokens' }),
  },
});

export default defineConfig({
  plugins: [suggest({ toolCalls: 3 }), example()],
});
`;

interface ExtensionModule {
  activate(context: { subscriptions: Array<{ dispose(): unknown }> }): Promise<void>;
  deactivate(): Promise<void>;
}

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const moduleInternals = Module as unknown as { _load: Loader };

/** Loads the bundle as the editor would, with `require('vscode')` answered by the fake. */
function loadExtension(fake: FakeVscode): ExtensionModule {
  const originalLoad = moduleInternals._load;
  moduleInternals._load = function load(this: unknown, request, parent, isMain) {
    if (request === 'vscode') return fake.api;
    return originalLoad.call(this, request, parent, isMain);
  };
  try {
    const require = createRequire(import.meta.url);
    delete require.cache[bundle];
    return require(bundle) as ExtensionModule;
  } finally {
    moduleInternals._load = originalLoad;
  }
}

beforeAll(async () => {
  await mkdir(workspaceDir, { recursive: true });
  await writeFile(path.join(workspaceDir, 'hookwise.config.mjs'), config);
  await writeFile(path.join(workspaceDir, 'README.md'), '# a workspace\n');
});
afterAll(async () => {
  // maxRetries: a state file written as the task ends can land while the folder is being removed.
  await rm(workspaceDir, { recursive: true, force: true, maxRetries: 5 });
});

describe('the example extension', () => {
  it('builds: type-checks against @types/vscode and bundles with esbuild', async () => {
    await rm(path.join(exampleDir, 'dist'), { recursive: true, force: true });
    await promisify(execFile)('npm', ['run', 'build'], { cwd: exampleDir });
    expect(existsSync(bundle)).toBe(true);
  });

  it('activates, runs a Roo-like task through hookwise, and disposes everything on deactivate', async () => {
    const fake = createFakeVscode({ folders: [fakeWorkspaceFolder(workspaceDir)] });
    const extension = loadExtension(fake);
    const context = { subscriptions: [] as Array<{ dispose(): unknown }> };
    await extension.activate(context);

    expect([...fake.commands.keys()].sort()).toEqual([
      'hookwise.compactNow',
      'hookwise.dismissSuggestion',
      'hookwise.showLog',
      'hookwiseExample.followUp',
      'hookwiseExample.runTask',
    ]);
    const status = fake.statusItems[0]!;
    expect(status.visible).toBe(true);

    const result = (await fake.executeCommand('hookwiseExample.runTask')) as { taskId: string; answer: string; systemPrompts: string[] };
    expect(result.answer).toBe('Listed the workspace 3 times.');
    // Every request got the intent summary prepended, exactly once.
    expect(result.systemPrompts).toHaveLength(4);
    for (const prompt of result.systemPrompts)
      expect(prompt).toBe(
        `## Active intent\nEXAMPLE-INTENT-1\n\nYou are an example agent working in ${workspaceDir}. Use list_files to look around.`,
      );
    expect(status.text).toMatch(/^\$\(pulse\) \d+% · 3 tools$/);
    expect(existsSync(path.join(workspaceDir, '.hookwise'))).toBe(true);

    // The 3rd tool call's suggestion became a notification with the plugin's actions; "Compact now" condenses the task.
    const suggestion = fake.messages.find((message) => message.message.startsWith('hookwise: 3 tool calls since the last compaction.'));
    expect(suggestion?.items).toEqual(['Compact now', 'Dismiss']);
    suggestion!.answer('Compact now');
    // The compaction runs after the click, with hook-suggest writing its log: wait for the line.
    await expect
      .poll(() => fake.channels[0]!.lines.join('\n'))
      .toMatch(new RegExp(`\\[Task#${result.taskId}\\] compact:after: (?:.*\\n)?condensed \\d+ → \\d+ tokens`));

    const tasks = (await fake.taskProviders.get('hookwise')!.provideTasks({} as never)) as Array<{ name: string }>;
    expect(tasks.map((task) => task.name)).toEqual(['report', 'doctor']);

    for (const subscription of context.subscriptions) subscription.dispose();
    await extension.deactivate();
    expect(fake.disposables.filter((disposable) => !disposable.disposed)).toEqual([]);
    expect(fake.commands.size).toBe(0);
  });
});
