// One AI SDK app, as a user writes it, run in a process of its own (Node 20 for ai 5 and 6, Node 22
// for ai 7): the real `ai` and a real provider package against the stand-in model, hookwise's
// built package as the middleware. Two prompts of one conversation, the agent reading files with
// a tool. Prints one JSON line: what the app's calls held before hookwise (recorded by an outer
// middleware), the app's own history at the end, and what reached its callbacks.
//
//   node scenario.mjs <ai5|ai6|ai7> <anthropic|openai> <generate|stream|agent> <baseURL>
import { hookwiseMiddleware } from '../../dist/index.js';
import { prune } from '@hookwise/hook-prune';

export const SYSTEM = 'You are a careful coding agent.';
export const RULE = 'Project rule: run the tests before you answer.';
export const MODEL_ID = 'stand-in-model';
/** The prune options of the suite: clear all but the newest output, at any size. */
// The window rule with no thresholds: every step prunes something, so the wire shows it (the default
// policy keeps the reads of files in use, which these short sessions never leave).
export const PRUNE_OPTIONS = { policy: 'window', keepRecent: 1, protectTokens: 0, minimumTokens: 0 };

const MODULES = {
  ai5: { ai: 'ai5', anthropic: 'anthropic5', openai: 'openai-compatible5' },
  ai6: { ai: 'ai', anthropic: '@ai-sdk/anthropic', openai: '@ai-sdk/openai-compatible' },
  ai7: { ai: 'ai7', anthropic: 'anthropic7', openai: 'openai-compatible7' },
};

/** What the `read` tool returns: a file of a few kilobytes. */
export const fileText = (file) =>
  `// ${file}\n${Array.from({ length: 120 }, (_, line) => `export const value${line} = ${line}; // ${file}`).join('\n')}\n`;

async function main() {
  // The stand-in's model id is unknown to the providers; their warnings about it are noise here.
  globalThis.AI_SDK_LOG_WARNINGS = false;
  const [major, providerName, mode, baseURL] = process.argv.slice(2);
  const modules = MODULES[major];
  const ai = await import(modules.ai);
  const model =
    providerName === 'anthropic'
      ? (await import(modules.anthropic)).createAnthropic({ baseURL, apiKey: 'stand-in' })(MODEL_ID)
      : (await import(modules.openai)).createOpenAICompatible({ name: 'stand-in', baseURL, apiKey: 'stand-in', includeUsage: true })(
          MODEL_ID,
        );

  const recorded = [];
  const recorder = {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => (recorded.push(JSON.parse(JSON.stringify(params.prompt))), params),
  };
  const notices = [];
  const errors = [];
  const hookwise = hookwiseMiddleware({
    sessionId: `${major}-${providerName}-${mode}`,
    config: { plugins: [prune(PRUNE_OPTIONS)], on: { 'llm:before': () => ({ context: RULE }) } },
    onNotice: (notice) => notices.push(notice.text),
    onError: (error) => errors.push(error),
  });
  const wrapped = ai.wrapLanguageModel({ model, middleware: [recorder, hookwise] });
  const tools = hookwise.tools({
    read: ai.tool({
      description: 'Read a file',
      inputSchema: ai.jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      execute: async ({ path }) => fileText(path),
    }),
  });
  const stopWhen = ai.stepCountIs(20);

  let messages = [];
  let finished = 0;
  const onFinish = async (event) => {
    finished++;
    await hookwise.onFinish(event);
  };
  for (const prompt of ['Read the first files.', 'Now read the next ones.']) {
    messages = [...messages, { role: 'user', content: prompt }];
    let result;
    if (mode === 'generate') {
      result = await ai.generateText({
        model: wrapped,
        system: SYSTEM,
        messages,
        tools,
        stopWhen,
        ...(major === 'ai5' ? {} : { onFinish }),
      });
      // ai 5's generateText has no onFinish: the app hands hookwise the result.
      if (major === 'ai5') await onFinish(result);
    } else if (mode === 'stream') {
      result = ai.streamText({ model: wrapped, system: SYSTEM, messages, tools, stopWhen, onFinish });
      await result.consumeStream();
    } else if (ai.ToolLoopAgent) {
      const agent = new ai.ToolLoopAgent({ model: wrapped, instructions: SYSTEM, tools, stopWhen, onFinish });
      result = await agent.generate({ messages });
    } else {
      // ai 5 has no ToolLoopAgent; its Experimental_Agent is the same loop without onFinish.
      const agent = new ai.Experimental_Agent({ model: wrapped, system: SYSTEM, tools, stopWhen });
      result = await agent.generate({ messages });
      await onFinish(result);
    }
    // ai 7 keeps every step's messages in `responseMessages` (its `response` is the last step's).
    const added = (await result.responseMessages) ?? (await result.response).messages;
    messages = [...messages, ...added];
  }
  await hookwise.dispose();
  process.stdout.write(`${JSON.stringify({ recorded, messages, notices, errors, finished })}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  });
