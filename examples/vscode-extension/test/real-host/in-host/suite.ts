import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { ExampleRunResult } from '../../../src/extension';

/*
 * Runs INSIDE the real extension host (`extensionTestsPath`): VS Code loads this file after the
 * extension under development and calls `run()`. A rejection makes the window report a failure
 * through `codeAutomationExit`; what was checked and seen goes to HOOKWISE_IN_HOST_REPORT for
 * the test outside to print.
 */

const INTENT = 'EXAMPLE-INTENT-1';
const SUMMARY = `## Active intent\n${INTENT}`;

type Block = { type: string; id?: string; tool_use_id?: string; content?: unknown; text?: string };
type Message = { role: 'user' | 'assistant'; content: string | Block[] };

const blocks = (message: Message): Block[] => (typeof message.content === 'string' ? [] : message.content);
const resultText = (block: Block): string =>
  typeof block.content === 'string'
    ? block.content
    : Array.isArray(block.content)
      ? block.content.map((part: { text?: string }) => part.text ?? '').join('')
      : '';

/** Every tool_use is answered by exactly one tool_result in the next message, and every tool_result answers one. */
function assertToolCallsPaired(messages: Message[], where: string): number {
  let pairs = 0;
  const seen = new Set<string>();
  messages.forEach((message, index) => {
    const uses = blocks(message).filter((block) => block.type === 'tool_use');
    const results = blocks(message).filter((block) => block.type === 'tool_result');
    if (message.role === 'user' && results.length > 0) {
      const previous = messages[index - 1];
      assert.ok(previous?.role === 'assistant', `${where}: tool results at message ${index} follow no assistant message`);
      const asked = new Set(
        blocks(previous)
          .filter((block) => block.type === 'tool_use')
          .map((block) => block.id),
      );
      for (const result of results)
        assert.ok(
          asked.has(result.tool_use_id),
          `${where}: tool_result ${result.tool_use_id} at message ${index} answers no tool_use of message ${index - 1}`,
        );
    }
    for (const use of uses) {
      assert.ok(use.id && !seen.has(use.id), `${where}: tool_use id ${use.id} missing or repeated`);
      seen.add(use.id);
      const answers = blocks(messages[index + 1] ?? { role: 'user', content: [] }).filter(
        (block) => block.type === 'tool_result' && block.tool_use_id === use.id,
      );
      // The newest tool call of a request may still be waiting for its result: it is the last message.
      if (index === messages.length - 1) continue;
      assert.equal(answers.length, 1, `${where}: tool_use ${use.id} at message ${index} has ${answers.length} results in the next message`);
      pairs++;
    }
  });
  return pairs;
}

export async function run(): Promise<void> {
  const report: Record<string, unknown> = { checks: [] as string[] };
  const passed = (check: string) => (report.checks as string[]).push(check);
  try {
    const extension = vscode.extensions.all.find((candidate) => candidate.packageJSON?.name === '@hookwise/example-vscode-extension');
    assert.ok(extension, 'the example extension is loaded');
    report.activatedBeforeTests = extension.isActive;
    await extension.activate();

    const first = await vscode.commands.executeCommand<ExampleRunResult>('hookwiseExample.runTask', 'Look around the workspace.');
    await vscode.commands.executeCommand<ExampleRunResult>('hookwiseExample.followUp', 'Look again.');
    const last = await vscode.commands.executeCommand<ExampleRunResult>('hookwiseExample.followUp', 'And once more.');
    assert.ok(first && last, 'the example commands returned their results');
    assert.equal(last.taskId, first.taskId, 'the follow-ups ran in the same task');
    const requests = last.requests as Array<{ systemPrompt: string; messages: Message[] }>;
    report.requests = requests.length;
    assert.equal(requests.length, 12, 'three prompts, each with three tool calls and an answer');

    // The summary reaches the model: every request's system prompt is `summary + "\n\n" + prompt`,
    // including the first, whose flaky hook threw (the other hook's summary still counts).
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const original = `You are an example agent working in ${folder}. Use list_files to look around.`;
    requests.forEach((request, index) =>
      assert.equal(request.systemPrompt, `${SUMMARY}\n\n${original}`, `system prompt of request ${index + 1}`),
    );
    report.lastSystemPrompt = requests.at(-1)!.systemPrompt;
    passed('the system prompt of every model request carries the intent summary');

    // hook-prune (thresholds 0 in the workspace's config) cleared the first prompt's tool
    // results once two more prompts stood after them, and left every call paired.
    const finalRequest = requests.at(-1)!;
    const listing = (id: string, messages: Message[]) =>
      messages.flatMap(blocks).find((block) => block.type === 'tool_result' && block.tool_use_id === id);
    const before = listing('toolu_1', requests[1]!.messages);
    const after = listing('toolu_1', finalRequest.messages);
    assert.ok(before && after, 'toolu_1 has a result in the second and the last request');
    report.toolu1Before = resultText(before);
    report.toolu1After = resultText(after);
    assert.ok(resultText(before).includes('hookwise.config.json'), 'the result of the first call was the workspace listing');
    assert.notEqual(resultText(after), resultText(before), "the first prompt's tool result was pruned by the time of the last request");
    const newest = listing('toolu_9', finalRequest.messages);
    assert.ok(newest && resultText(newest).includes('hookwise.config.json'), "the current prompt's tool results are kept");
    let pairs = 0;
    requests.forEach((request, index) => (pairs += assertToolCallsPaired(request.messages, `request ${index + 1}`)));
    report.pairsChecked = pairs;
    report.finalMessages = finalRequest.messages.length;
    passed('the pruned messages keep every tool call paired');
    report.ok = true;
  } catch (error) {
    report.ok = false;
    report.error = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
    throw error;
  } finally {
    const file = process.env.HOOKWISE_IN_HOST_REPORT;
    if (file) writeFileSync(file, JSON.stringify(report, null, 2));
  }
}
