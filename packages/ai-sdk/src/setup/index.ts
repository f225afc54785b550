import path from 'node:path';
import type { HostSetup } from '@hookwise/cli';
import { installedPackageFolder, readJsonObject } from '@hookwise/core/host';

/** What an app adds to its code: the snippet `hookwise init --host ai-sdk` prints. */
export const SNIPPET = `import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { hookwiseMiddleware } from '@hookwise/ai-sdk';

// One per conversation (or one per app, naming the conversation per call: see the README).
const hookwise = hookwiseMiddleware({ sessionId: chatId, projectDir: process.cwd(), onNotice: (notice) => console.log(notice.text) });
const model = wrapLanguageModel({ model: yourModel, middleware: hookwise });

const result = await generateText({ model, tools: hookwise.tools(tools), messages, stopWhen: stepCountIs(20), onFinish: hookwise.onFinish });
`;

/** The version of `ai` installed for the project, if any: node_modules/ai from the project upwards, as Node resolves it. */
function installedAi(projectDir: string): string | undefined {
  const folder = installedPackageFolder(projectDir, 'ai');
  const read = folder === undefined ? undefined : readJsonObject(path.join(folder, 'package.json'));
  if (!read?.ok || read.value['name'] !== 'ai') return undefined;
  return typeof read.value['version'] === 'string' ? read.value['version'] : undefined;
}

/**
 * What `hookwise` (@hookwise/cli) does for AI SDK apps; package.json's `"hookwise"` field points
 * the CLI here. hookwise runs inside the app, so there is no file of the host's to write: `init`
 * leaves the config to the CLI and prints the lines the app's code needs.
 */
const setup: HostSetup = {
  host: 'ai-sdk',
  describe: 'AI SDK apps: prints the middleware lines your app adds (wrapLanguageModel)',
  async init({ stdout }) {
    stdout(`Add hookwise to your AI SDK app:\n\n${SNIPPET}`);
    return { ok: true, files: [] };
  },
  async doctor({ projectDir, ok, problem }) {
    const version = installedAi(projectDir);
    if (version === undefined) problem(`the AI SDK (\`ai\`) is not installed in ${projectDir}; run \`npm install ai\``);
    else if (!/^[567]\./.test(version)) problem(`ai ${version} is installed; @hookwise/ai-sdk supports ai 5, 6 and 7`);
    else ok(`ai ${version} is installed`);
  },
};

export default setup;
