// A short scripted task run through @hookwise/adapter-vscode's binding, the way a Roo Code /
// Cline style extension calls it from its task loop: task start, a slash command, model
// requests with tool calls, a condense, task end. The history is kept in the Anthropic Messages
// format, as those extensions keep it.
import { createTaskBinding } from '@hookwise/adapter-vscode';
import { defineConfig } from '@hookwise/core';
import { createHost, createMemoryEventLog, createMemoryStateStore, silentLogger } from '@hookwise/core/host';
import precompact from '@hookwise/hook-precompact';
import prune from '@hookwise/hook-prune';
import suggest from '@hookwise/hook-suggest';

const CONTEXT_WINDOW = 200_000;
const SYSTEM_PROMPT = 'You are a careful coding agent working in a VS Code workspace.';

/** chars / 4, as hookwise estimates by default: the host's own count in this script. */
const tokensOf = (messages) => Math.ceil(JSON.stringify(messages).length / 4);
const formatNumber = (value) => Math.round(value).toLocaleString('en-US');

/** A file's worth of tool output: `tokens` tokens of numbered source lines. */
function fileContent(path, tokens) {
  const lines = [];
  let length = 0;
  for (let number = 1; length < tokens * 4; number++) {
    const line = `${String(number).padStart(5)}  export const value${number} = compute('${path}', ${number}); // line ${number} of ${path}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

/**
 * The script: prompts, and the files the "model" reads after each one. The first turn reads a
 * lot; once the newest three results and 40,000 tokens of older ones are kept, hook-prune's
 * window policy clears the oldest reads.
 */
const SCRIPT = [
  {
    prompt: '/review-plan docs/plan.md',
    command: { name: 'review-plan', args: 'docs/plan.md' },
    reads: [
      ['src/engine.ts', 30_000],
      ['src/config.ts', 28_000],
      ['src/state.ts', 26_000],
    ],
  },
  { prompt: 'Step 2 touches the event log too; check it against the plan.', reads: [['src/event-log.ts', 24_000]] },
  { prompt: 'Now step 3: the CLI entry point.', reads: [['src/cli.ts', 36_000]] },
];

/**
 * Runs the scripted task and returns what the hooks did, printing as it goes through `print`.
 * `projectDir` is where hook-precompact finds `.claude/commands/review-plan.md`.
 */
export async function runVscodeSession({ projectDir, print = () => {} }) {
  // What an extension gets from `loadConfig(workspaceFolder)`; spelled out so the demo needs no file.
  // The window policy: five whole-file reads are all files in use, which hook-prune's default
  // (cache-aware) policy keeps; the window rule shows the binding's pruning on a task this short.
  const config = defineConfig({ plugins: [prune({ policy: 'window' }), precompact(), suggest()] });
  const host = createHost({
    config,
    projectDir,
    host: 'vscode',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
  const engine = await host.engine();
  const binding = createTaskBinding({ host });
  const taskId = 'demo-task-1';
  const base = { taskId, model: 'claude-sonnet-4-5', contextWindow: CONTEXT_WINDOW };
  const facts = { requests: [], suggestions: [], preserved: [], condenseContext: undefined, afterCondenseContext: undefined };

  await binding.taskStarted({ ...base, source: 'startup' });
  print(`task ${taskId} started (plugins: ${engine.plugins.map((plugin) => plugin.name).join(', ')})`);
  const history = [];
  let toolNumber = 0;

  for (const step of SCRIPT) {
    const userResult = await binding.userMessage({ ...base, prompt: step.prompt, command: step.command, contextTokens: tokensOf(history) });
    history.push({ role: 'user', content: step.prompt });
    print(`user: ${step.prompt}${userResult.notice ? `  → ${userResult.notice}` : ''}`);

    for (const [path, tokens] of [...step.reads, [null, 0]]) {
      // Before every model request, as Roo's attemptApiRequest does.
      const request = await binding.beforeModelRequest({
        ...base,
        systemPrompt: SYSTEM_PROMPT,
        messages: history,
        contextTokens: tokensOf(history),
      });
      const sent = tokensOf(request.messages);
      const saved = tokensOf(history) - sent;
      facts.requests.push({ messages: history.length, tokens: tokensOf(history), sent, saved });
      print(
        `request ${facts.requests.length}: ${history.length} message${history.length === 1 ? '' : 's'}, ~${formatNumber(tokensOf(history))} tokens` +
          (request.changed.messages
            ? ` → hook-prune cleared old tool output: ~${formatNumber(saved)} tokens not sent`
            : ', sent unchanged'),
      );
      if (path === null) {
        history.push({ role: 'assistant', content: [{ type: 'text', text: `Checked ${step.reads.length} file(s) against the plan.` }] });
        break;
      }
      const toolUseId = `toolu_demo_${++toolNumber}`;
      const input = { path };
      history.push({ role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'read_file', input }] });
      await binding.beforeToolUse({ ...base, toolName: 'read_file', input, toolUseId });
      const output = fileContent(path, tokens);
      history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: output }] });
      const after = await binding.afterToolUse({
        ...base,
        toolName: 'read_file',
        input,
        toolUseId,
        output,
        ok: true,
        contextTokens: tokensOf(history),
      });
      print(`  read_file ${path}: ${formatNumber(tokens)} tokens`);
      if (after.notice) {
        facts.suggestions.push(after.notice);
        print(`  hook-suggest: ${after.notice}`);
      }
    }
  }

  const before = tokensOf(history);
  const condense = await binding.beforeCondense({ ...base, trigger: 'manual', contextTokens: before });
  facts.preserved = condense.preserved;
  facts.condenseContext = condense.context;
  print(
    `condense (manual) at ~${formatNumber(before)} tokens: hook-precompact preserved ${condense.preserved.length > 0 ? condense.preserved.join(', ') : 'nothing'}` +
      (condense.context ? ` (${formatNumber(condense.context.length)} characters added to the condensing instructions)` : ''),
  );
  const after = await binding.afterCondense({ ...base, trigger: 'manual', tokensBefore: before, tokensAfter: 4_000 });
  facts.afterCondenseContext = after.context;
  if (after.context) print(`after condense: the preserved block goes back to the model (${formatNumber(after.context.length)} characters)`);
  await binding.taskEnded({ ...base, reason: 'completed' });
  print('task ended');
  await host.dispose();
  return facts;
}
