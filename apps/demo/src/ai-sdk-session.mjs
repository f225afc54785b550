// Part 5 of `npm run demo`: an AI SDK agent app (the real `ai` and `@ai-sdk/anthropic`) through
// @hookwise/ai-sdk's middleware against a loopback stand-in of the Anthropic Messages API. The same
// app runs twice — without hookwise and with it — and every request is shown with what hookwise
// changed, then the input cost of both runs under prompt caching.
import { createAnthropic } from '@ai-sdk/anthropic';
import { hookwiseMiddleware } from '@hookwise/ai-sdk';
import { CacheMeter, cacheCost } from '@hookwise/core/counting';
import { silentLogger } from '@hookwise/core/host';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import { fromAnthropicMessages } from '@hookwise/core/messages';
import { isPrunedOutput, prune } from '@hookwise/hook-prune';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
// The stand-in model of the package's end-to-end suite: one copy for the tests and the demo.
import { startStandInModel, systemTexts, toolResults } from '../../../packages/ai-sdk/test/e2e/stand-in-model.mjs';

const SYSTEM = 'You are a coding agent working on a TypeScript service.';
const PROMPTS = ['Find the request handlers.', 'Now find the storage layer.', 'And the tests.'];
const READS_PER_PROMPT = 6;
const RULE = 'Project rule: never edit generated files under src/gen/.';

/** Search results of 9–14 KB, as a code search returns them. */
const fileText = (file) =>
  `// ${file}\n${Array.from({ length: 90 + (Number(/\d+/.exec(file)?.[0] ?? 0) % 4) * 15 }, (_, line) => `export function handler${line}(request: Request): Response { return respond(request, ${line}); }`).join('\n')}\n`;

const format = (value) => Math.round(value).toLocaleString('en-US');

/**
 * Input cost of a run's requests under prompt caching, by core's model (`@hookwise/core/counting`:
 * reads 0.1×, writes 1.25× or 2× from the first message that differs), the system and tools as
 * the prefix; the requests as the stand-in received them.
 */
function cacheCostOf(requests, lifetime) {
  const meter = new CacheMeter(defaultTokenCounter);
  const figures = requests.map((request) => meter.request(fromAnthropicMessages(request.body.messages)));
  const prefixTokens = defaultTokenCounter.count(JSON.stringify({ system: requests[0]?.body.system, tools: requests[0]?.body.tools }));
  return cacheCost(figures, prefixTokens, lifetime);
}

/** The app: a tool loop per prompt, its own history kept across prompts. */
async function runApp(model, hookwise) {
  const search = tool({
    description: 'Search the code',
    inputSchema: jsonSchema({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }),
    execute: async ({ query }) => fileText(query),
  });
  const tools = hookwise ? hookwise.tools({ search }) : { search };
  let messages = [];
  for (const prompt of PROMPTS) {
    messages = [...messages, { role: 'user', content: prompt }];
    const result = await generateText({
      model,
      system: SYSTEM,
      messages,
      tools,
      stopWhen: stepCountIs(20),
      maxOutputTokens: 1_024,
      ...(hookwise ? { onFinish: hookwise.onFinish } : {}),
    });
    messages = [...messages, ...result.response.messages];
  }
  return messages;
}

export async function runAiSdkSession({ print }) {
  globalThis.AI_SDK_LOG_WARNINGS = false;
  // Searches, not file reads: hook-prune's default keeps the reads of files in use, which a
  // session this short never leaves.
  const standIn = await startStandInModel({
    readsPerPrompt: READS_PER_PROMPT,
    callFor: (n) => ({ name: 'search', input: { query: `handlers in src/file-${n}.ts` } }),
  });
  try {
    const provider = createAnthropic({ baseURL: standIn.url, apiKey: 'stand-in' });

    await runApp(provider('claude-sonnet-4-5'));
    const without = standIn.reset();

    const notices = [];
    const hookwise = hookwiseMiddleware({
      sessionId: 'demo-ai-sdk',
      config: { plugins: [prune()], on: { 'llm:before': () => ({ context: RULE }) } },
      onNotice: (notice) => notices.push(notice.text),
      logger: silentLogger,
    });
    const kept = await runApp(wrapLanguageModel({ model: provider('claude-sonnet-4-5'), middleware: hookwise }), hookwise);
    const withHookwise = standIn.reset();
    await hookwise.dispose();

    print(
      `${PROMPTS.length} prompts, ${READS_PER_PROMPT} code searches each (9–14 KB of results), generateText with a search tool; model: @ai-sdk/anthropic against the loopback stand-in.`,
    );
    print(`hookwise: hookwiseMiddleware({ plugins: [prune()] }) plus a project rule in the system prompt.\n`);
    print('request  tool results  pruned (✂)  tokens sent without → with hookwise');
    withHookwise.forEach((request, index) => {
      const results = toolResults('anthropic', request.body);
      const pruned = results.filter((result) => isPrunedOutput(result.text)).length;
      const sent = (body) => defaultTokenCounter.count(JSON.stringify(body.messages));
      print(
        `${String(index + 1).padStart(7)}  ${String(results.length).padStart(12)}  ${String(pruned).padStart(10)}  ${format(sent(without[index].body)).padStart(8)} → ${format(sent(request.body))}`,
      );
    });
    print(
      `\nSystem text with hookwise (the same in all ${withHookwise.length} requests: ${new Set(withHookwise.map((request) => systemTexts('anthropic', request.body).join('|'))).size === 1 ? 'yes' : 'no'}):`,
    );
    for (const text of systemTexts('anthropic', withHookwise[0].body)) print(`  · ${text}`);
    const keptWhole = kept
      .filter((message) => message.role === 'tool')
      .every((message) => message.content.every((part) => !isPrunedOutput(String(part.output?.value ?? ''))));
    print(
      `The app's own history keeps every output whole: ${keptWhole ? 'yes' : 'NO'}.${notices.length > 0 ? ` Notices: ${notices.join(' / ')}` : ''}`,
    );

    print(
      '\nInput cost under prompt caching (units of the base input price; reads 0.1×, writes 1.25× for 5-minute, 2× for 1-hour caching):',
    );
    for (const [label, lifetime] of [
      ['5-minute writes', '5m'],
      ['1-hour writes', '1h'],
    ]) {
      const before = cacheCostOf(without, lifetime);
      const after = cacheCostOf(withHookwise, lifetime);
      print(
        `  ${label.padEnd(16)} without hookwise ${format(before).padStart(9)}   with ${format(after).padStart(9)}   (${(after / before).toFixed(2)}×)`,
      );
    }
    print(`  (hook-prune's default policy; core's cache model, the one \`hookwise report\` uses, tokens by core's counter.)`);
    return {
      without,
      withHookwise,
      keptWhole,
      costs: ['5m', '1h'].map((lifetime) => ({
        lifetime,
        without: cacheCostOf(without, lifetime),
        with: cacheCostOf(withHookwise, lifetime),
      })),
    };
  } finally {
    await standIn.close();
  }
}
