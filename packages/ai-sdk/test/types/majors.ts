// Compiled by `type-check`, never run: one middleware object is a middleware of ai 5, 6 and 7,
// its tools are tools of each, and its onFinish is each one's onFinish, without casts.
import {
  generateText as generateText6,
  jsonSchema as jsonSchema6,
  tool as tool6,
  wrapLanguageModel as wrap6,
  type LanguageModel as LanguageModel6,
} from 'ai';
import {
  streamText as streamText5,
  generateText as generateText5,
  jsonSchema as jsonSchema5,
  tool as tool5,
  wrapLanguageModel as wrap5,
  type LanguageModel as LanguageModel5,
} from 'ai5';
import {
  generateText as generateText7,
  jsonSchema as jsonSchema7,
  tool as tool7,
  wrapLanguageModel as wrap7,
  type LanguageModel as LanguageModel7,
} from 'ai7';
import { MockLanguageModelV2 } from 'ai5/test';
import { MockLanguageModelV3 } from 'ai/test';
import { MockLanguageModelV4 } from 'ai7/test';
import { hookwiseMiddleware } from '../../src/index.js';

const hookwise = hookwiseMiddleware();

const model5: LanguageModel5 = wrap5({ model: new MockLanguageModelV2(), middleware: hookwise });
const model6: LanguageModel6 = wrap6({ model: new MockLanguageModelV3(), middleware: hookwise });
const model7: LanguageModel7 = wrap7({ model: new MockLanguageModelV4(), middleware: hookwise });

const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as const;

export async function allMajors() {
  // ai 5's generateText has no onFinish: the app hands hookwise the result.
  const result5 = await generateText5({
    model: model5,
    prompt: 'hi',
    tools: hookwise.tools({ read: tool5({ inputSchema: jsonSchema5<{ path: string }>(schema), execute: async ({ path }) => path }) }),
  });
  await hookwise.onFinish(result5);
  streamText5({ model: model5, prompt: 'hi', onFinish: hookwise.onFinish });
  await generateText6({
    model: model6,
    prompt: 'hi',
    tools: hookwise.tools({ read: tool6({ inputSchema: jsonSchema6<{ path: string }>(schema), execute: async ({ path }) => path }) }),
    onFinish: hookwise.onFinish,
  });
  await generateText7({
    model: model7,
    prompt: 'hi',
    tools: hookwise.tools({ read: tool7({ inputSchema: jsonSchema7<{ path: string }>(schema), execute: async ({ path }) => path }) }),
    onFinish: hookwise.onFinish,
  });
}
