// One app instance answering one turn of a conversation, as a server behind a load balancer does:
// the client holds the history, any instance takes the next turn, hookwise's session state lives
// where HOOKWISE_STATE_URL says (the one line a deployment adds). Prints one JSON line.
//
//   HOOKWISE_STATE_URL=redis://… node instance.mjs <projectDir> <baseURL> <historyFile> <prompt>
import { readFileSync, writeFileSync } from 'node:fs';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { prune } from '@hookwise/hook-prune';
import { suggest } from '@hookwise/hook-suggest';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { hookwiseMiddleware } from '../../dist/index.js';
import { fileText, MODEL_ID, PRUNE_OPTIONS, SYSTEM } from './scenario.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;
const [projectDir, baseURL, historyFile, prompt] = process.argv.slice(2);
const notices = [];
const errors = [];
const hookwise = hookwiseMiddleware({
  sessionId: 'conversation-1',
  projectDir,
  // A reminder every 2 tool calls: the count is the conversation's, whichever instance served a turn.
  plugins: [prune(PRUNE_OPTIONS), suggest({ toolCalls: 2, toolCallStep: 2, toolCallBackoff: 1, quietBelowPercent: 0 })],
  onNotice: (notice) => notices.push(notice.text),
  onError: (error) => errors.push(error),
});
const model = wrapLanguageModel({
  model: createOpenAICompatible({ name: 'stand-in', baseURL, apiKey: 'stand-in', includeUsage: true })(MODEL_ID),
  middleware: hookwise,
});
const tools = hookwise.tools({
  read: tool({
    description: 'Read a file',
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => fileText(path),
  }),
});
const history = JSON.parse(readFileSync(historyFile, 'utf8'));
const messages = [...history, { role: 'user', content: prompt }];
const result = await generateText({
  model,
  system: SYSTEM,
  messages,
  tools,
  stopWhen: stepCountIs(10),
  onFinish: (event) => hookwise.onFinish(event),
});
writeFileSync(historyFile, JSON.stringify([...messages, ...result.response.messages]));
await hookwise.dispose();
process.stdout.write(`${JSON.stringify({ text: result.text, notices, errors })}\n`);
