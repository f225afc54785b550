// A Mastra agent whose model is an AI SDK model wrapped with hookwise's middleware, run on Node 22
// (@mastra/core needs >= 22.13) against the stand-in: every request the agent makes goes through
// hookwise. @mastra/core comes from the test's cache (test/e2e/mastra.mjs).
//
//   node mastra-scenario.mjs <@mastra/core folder> <baseURL>
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { prune } from '@hookwise/hook-prune';
import { jsonSchema, tool, wrapLanguageModel } from 'ai';
import { hookwiseMiddleware } from '../../dist/index.js';
import { fileText, MODEL_ID, PRUNE_OPTIONS, RULE, SYSTEM } from './scenario.mjs';

/** An ESM entry of @mastra/core by its exports map (the package lives outside this workspace). */
async function mastraEntry(folder, subpath) {
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
  return import(pathToFileURL(path.join(folder, manifest.exports[subpath].import.default)).href);
}

const [mastraFolder, baseURL] = process.argv.slice(2);
const { Agent } = await mastraEntry(mastraFolder, './agent');
const errors = [];
const hookwise = hookwiseMiddleware({
  sessionId: 'mastra',
  config: { plugins: [prune(PRUNE_OPTIONS)], on: { 'llm:before': () => ({ context: RULE }) } },
  onError: (error) => errors.push(error),
});
const model = wrapLanguageModel({
  model: createOpenAICompatible({ name: 'stand-in', baseURL, apiKey: 'stand-in', includeUsage: true })(MODEL_ID),
  middleware: hookwise,
});
const read = tool({
  description: 'Read a file',
  inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path: file }) => fileText(file),
});
const agent = new Agent({ id: 'reader', name: 'reader', instructions: SYSTEM, model, tools: { read } });
const result = await agent.generate('Read the first files.', { maxSteps: 10 });
await hookwise.dispose();
process.stdout.write(`${JSON.stringify({ text: result.text, errors })}\n`);
