import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  claudeVersion,
  createScratchProject,
  hookwise,
  readJsonl,
  runClaude,
  writeJson,
  type ScratchProject,
} from '../harness.js';
import { isToolResultTurn, startStandInApi, type MessagesRequest, type Responder, type StandInApi } from './stand-in-api.js';

/**
 * hook-prune trimming an oversized tool output as it arrives, end to end with the real Claude
 * Code 2.1.330 (PostToolUse `updatedToolOutput`), offline against the stand-in Messages API.
 * Claude Code checks a replacement against the tool's output schema and keeps the original when
 * it does not match. Bash, Agent (a sub-agent's report) and an MCP tool run here. This build
 * offers the model Agent, Bash, Edit, ListAgents, Read, ReportFindings, ScheduleWakeup, Skill,
 * ToolSearch, Workflow and Write up front (Grep, Glob and WebFetch are not among them); their
 * shapes are unit-tested in hook-prune against the types Claude Code ships (sdk-tools.d.ts).
 */
const PINNED_CLAUDE_CODE = '2.1.330';
const COUNT = 5_000;
// What `seq 1 5000` prints: 23,893 characters, over hook-prune's default 10,000.
const SEQ_OUTPUT = Array.from({ length: COUNT }, (_, index) => String(index + 1)).join('\n');

let api: StandInApi;
const projects: ScratchProject[] = [];

beforeAll(async () => {
  assertBuilt();
  expect(claudeVersion()).toContain(PINNED_CLAUDE_CODE);
  api = await startStandInApi(oneBigCommand('toolu_trim_0'));
});
afterAll(async () => {
  await api?.close();
  for (const project of projects) project.remove();
});

/** First request of the prompt: one tool call with a fixed id (Bash `seq` unless told); after its result: a final text. */
function oneBigCommand(
  id: string,
  call: { name: string; input: unknown } = { name: 'Bash', input: { command: `seq 1 ${COUNT}`, description: 'count' } },
): Responder {
  return (body, { kind }) => {
    if (kind === 'main' && !isToolResultTurn(body)) return { content: [{ type: 'tool_use', id, ...call }], inputTokens: 30_000 };
    return { content: [{ type: 'text', text: 'Done.' }], inputTokens: 31_000 };
  };
}

function initProject(pluginOptions: Record<string, unknown>): ScratchProject {
  const project = createScratchProject('hookwise-trim-e2e-');
  projects.push(project);
  const result = hookwise(['init', '--plugins', 'prune'], { cwd: project.dir, env: { HOME: project.home } });
  expect(result.code, result.stderr).toBe(0);
  writeJson(path.join(project.dir, 'hookwise.config.json'), { plugins: { '@hookwise/hook-prune': pluginOptions } });
  return project;
}

/** Runs one prompt; returns the session id and the main request that carries the tool result. */
async function runPrompt(
  project: ScratchProject,
  id: string,
  call?: { name: string; input: unknown },
): Promise<{ sessionId: string; request: MessagesRequest }> {
  api.setResponder(oneBigCommand(id, call));
  const start = api.requests.length;
  const run = await runClaude(project, api.url, ['-p', 'Count to five thousand', '--output-format', 'json']);
  expect(run.code, `claude failed: ${run.stderr}\n${run.stdout}`).toBe(0);
  const output = JSON.parse(run.stdout) as { result: string; session_id: string };
  expect(output.result).toBe('Done.');
  const request = api.requests.slice(start).find((recorded) => recorded.kind === 'main' && isToolResultTurn(recorded.body));
  expect(request, 'no request carried the tool result').toBeDefined();
  return { sessionId: output.session_id, request: request!.body };
}

type Part = { type?: string; tool_use_id?: string; content?: unknown; text?: string };
const parts = (request: MessagesRequest): Part[] =>
  request.messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Part[]) : []));
const resultText = (request: MessagesRequest, id: string): string => {
  const result = parts(request).find((part) => part.type === 'tool_result' && part.tool_use_id === id)!;
  return typeof result.content === 'string' ? result.content : (result.content as Part[]).map((part) => part.text ?? '').join('');
};

/** The request's messages with the one tool result's text and the run-specific names (ids, folders) taken out. */
/**
 * The result of a 400-line output (lines `<label> 0001` … `<label> 0400`) reached the model
 * trimmed: head and tail kept, the middle only in the saved file the note names, and Claude Code
 * did not reject the replacement's shape.
 */
function expectTrimmedResult(request: MessagesRequest, id: string, project: ScratchProject, sessionId: string, label: string): void {
  const text = resultText(request, id);
  const file = path.join(project.dir, '.hookwise', 'outputs', sessionId, `${id}.txt`);
  expect(text).toContain(`characters cut by hookwise; the full output is in ${file}`);
  expect(text).toContain(`${label} 0001`);
  expect(text).toContain(`${label} 0400`);
  expect(text).not.toContain(`${label} 0200`);
  expect(readFileSync(file, 'utf8')).toContain(`${label} 0200`);
  expect(JSON.stringify(request.messages)).not.toContain('output shape');
}

function normalized(request: MessagesRequest, id: string, project: ScratchProject, sessionId: string): string {
  const messages = request.messages.map((message) => ({
    role: message.role,
    content: Array.isArray(message.content)
      ? (message.content as Part[]).map((part) =>
          part.type === 'tool_result' && part.tool_use_id === id ? { ...part, tool_use_id: 'ID', content: 'OUTPUT' } : part,
        )
      : message.content,
  }));
  return JSON.stringify(messages).replaceAll(id, 'ID').replaceAll(path.dirname(project.dir), 'ROOT').replaceAll(sessionId, 'SESSION');
}

describe('hook-prune trims an oversized output with the real Claude Code', { timeout: 300_000 }, () => {
  it('the next request carries the trimmed output, the file holds the original, nothing else changes', async () => {
    const control = initProject({ trimOutputs: false });
    const controlRun = await runPrompt(control, 'toolu_trim_control');
    // Without trimming, the model gets the whole output.
    expect(resultText(controlRun.request, 'toolu_trim_control').trimEnd()).toBe(SEQ_OUTPUT);

    const project = initProject({});
    const { sessionId, request } = await runPrompt(project, 'toolu_trim_1');
    const file = path.join(project.dir, '.hookwise', 'outputs', sessionId, 'toolu_trim_1.txt');
    // The file holds the original output.
    expect(readFileSync(file, 'utf8').trimEnd()).toBe(SEQ_OUTPUT);

    // The request carries head and tail and one line naming the file.
    const text = resultText(request, 'toolu_trim_1');
    expect(text.length).toBeLessThan(10_000);
    expect(text.startsWith('1\n2\n3\n')).toBe(true);
    expect(text.trimEnd().endsWith('4999\n5000')).toBe(true);
    const notes = text.split('\n').filter((line) => line.includes('cut by hookwise'));
    expect(notes).toEqual([
      `[… ${(SEQ_OUTPUT.length - 6_000 - 3_000).toLocaleString('en-US')} characters cut by hookwise; the full output is in ${file} — read that file for the rest]`,
    ]);
    // Claude Code accepted the replacement (no "does not match … output shape" error went to the model).
    expect(JSON.stringify(request.messages)).not.toContain('output shape');

    // Nothing else changes: the same messages as the control run, but for that one result.
    expect(normalized(request, 'toolu_trim_1', project, sessionId)).toBe(
      normalized(controlRun.request, 'toolu_trim_control', control, controlRun.sessionId),
    );

    const trimmed = readJsonl(path.join(project.dir, '.hookwise', 'logs', 'events.jsonl')).filter(
      (record) => record.type === 'prune:trimmed',
    );
    expect(trimmed).toMatchObject([
      { toolName: 'Bash', toolUseId: 'toolu_trim_1', path: `.hookwise/outputs/${sessionId}/toolu_trim_1.txt` },
    ]);
  });

  it("a sub-agent's report (the Agent tool's output), trimmed when a project opts in: Claude Code accepts it in its shape", async () => {
    // Sub-agent reports are never trimmed by default (they cannot be had again); a project that
    // lists its own exceptions opts in.
    const project = initProject({ trimOutputs: { exceptTools: ['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit'] } });
    // 400 lines of 100 characters: about 40,000 characters of report.
    const report = Array.from({ length: 400 }, (_, index) => `finding ${String(index + 1).padStart(4, '0')} ${'y'.repeat(87)}`).join('\n');
    const id = 'toolu_trim_agent';
    api.setResponder((body, { kind }) => {
      const text = JSON.stringify(body.messages);
      // The sub-agent's own requests carry the prompt the Agent call gave it.
      if (kind === 'main' && text.includes('SUBAGENT-TASK') && !text.includes(id))
        return { content: [{ type: 'text', text: report }], inputTokens: 20_000 };
      if (kind === 'main' && !isToolResultTurn(body))
        return {
          content: [
            {
              type: 'tool_use',
              id,
              name: 'Agent',
              input: {
                description: 'survey',
                prompt: 'SUBAGENT-TASK: list the findings',
                subagent_type: 'general-purpose',
                run_in_background: false,
              },
            },
          ],
          inputTokens: 30_000,
        };
      return { content: [{ type: 'text', text: 'Done.' }], inputTokens: 31_000 };
    });
    const start = api.requests.length;
    const run = await runClaude(project, api.url, ['-p', 'Survey the code', '--output-format', 'json']);
    expect(run.code, `claude failed: ${run.stderr}\n${run.stdout}`).toBe(0);
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const request = api.requests
      .slice(start)
      .find((recorded) => recorded.kind === 'main' && JSON.stringify(recorded.body.messages).includes(`"tool_use_id":"${id}"`));
    expect(request, 'no request carried the Agent result').toBeDefined();
    expectTrimmedResult(request!.body, id, project, sessionId, 'finding');
  });

  it("an MCP tool's output: Claude Code accepts the trimmed output in its shape", async () => {
    const project = initProject({});
    // A stdio MCP server with one tool that returns about 40,000 characters of text.
    const server = path.join(project.dir, 'big-mcp.cjs');
    writeFileSync(
      server,
      [
        "const rows = Array.from({ length: 400 }, (_, index) => `row ${String(index + 1).padStart(4, '0')} ${'z'.repeat(91)}`).join('\\n');",
        "const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');",
        "require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {",
        '  const message = JSON.parse(line);',
        '  if (message.id === undefined) return;',
        "  if (message.method === 'initialize') send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'big', version: '1.0.0' } } });",
        "  else if (message.method === 'tools/list') send({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'dump', description: 'Dumps the rows', inputSchema: { type: 'object', properties: {} } }] } });",
        "  else if (message.method === 'tools/call') send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: rows }] } });",
        "  else send({ jsonrpc: '2.0', id: message.id, result: {} });",
        '});',
      ].join('\n'),
    );
    const mcpConfig = path.join(project.dir, 'mcp.json');
    writeJson(mcpConfig, { mcpServers: { big: { type: 'stdio', command: process.execPath, args: [server] } } });
    // MCP tools offered up front rather than behind tool search, so the scripted model can call one.
    const settingsFile = path.join(project.dir, '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    writeJson(settingsFile, { ...settings, env: { ENABLE_TOOL_SEARCH: 'false' } });
    const id = 'toolu_trim_mcp';
    api.setResponder((body, { kind }) => {
      if (kind === 'main' && !isToolResultTurn(body))
        return { content: [{ type: 'tool_use', id, name: 'mcp__big__dump', input: {} }], inputTokens: 30_000 };
      return { content: [{ type: 'text', text: 'Done.' }], inputTokens: 31_000 };
    });
    const start = api.requests.length;
    const run = await runClaude(project, api.url, [
      '-p',
      'Dump the rows',
      '--output-format',
      'json',
      '--mcp-config',
      mcpConfig,
      '--strict-mcp-config',
    ]);
    expect(run.code, `claude failed: ${run.stderr}\n${run.stdout}`).toBe(0);
    const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const request = api.requests.slice(start).find((recorded) => recorded.kind === 'main' && isToolResultTurn(recorded.body));
    expect(request, 'no request carried the MCP result').toBeDefined();
    expectTrimmedResult(request!.body, id, project, sessionId, 'row');
  });
});
