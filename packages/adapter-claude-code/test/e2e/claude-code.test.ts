import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createFileStateStore } from '@hookwise/core/host';
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
import { threeToolCalls, writeBabysitCommand } from './scenarios.js';
import { startStandInApi, type MessagesRequest, type StandInApi } from './stand-in-api.js';

/**
 * End to end with the real Claude Code (the pinned @anthropic-ai/claude-code dev dependency),
 * offline against the stand-in Messages API, in scratch projects set up by `hookwise init`.
 */
const PINNED_CLAUDE_CODE = '2.1.330';

let api: StandInApi;
const projects: ScratchProject[] = [];

beforeAll(async () => {
  assertBuilt();
  expect(claudeVersion()).toContain(PINNED_CLAUDE_CODE);
  api = await startStandInApi(threeToolCalls());
});
afterAll(async () => {
  await api?.close();
  for (const project of projects) project.remove();
});

/** A project made by `hookwise init`, with the given plugin options written into its config. */
function initProject(pluginOptions: Record<string, unknown> = {}): ScratchProject {
  const project = createScratchProject('hookwise-e2e-');
  projects.push(project);
  const result = hookwise(['init', '--plugins', 'prune,precompact,suggest'], { cwd: project.dir, env: { HOME: project.home } });
  expect(result.code, result.stderr).toBe(0);
  const configFile = path.join(project.dir, 'hookwise.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as { plugins: Record<string, unknown> };
  writeJson(configFile, { ...config, plugins: { ...config.plugins, ...pluginOptions } });
  return project;
}

async function claudeJson(
  project: ScratchProject,
  args: string[],
): Promise<{ result: string; session_id: string; is_error: boolean; subtype: string }> {
  const run = await runClaude(project, api.url, [...args, '--output-format', 'json']);
  expect(run.code, `claude failed: ${run.stderr}\n${run.stdout}`).toBe(0);
  return JSON.parse(run.stdout) as { result: string; session_id: string; is_error: boolean; subtype: string };
}

async function suggestState(project: ScratchProject, sessionId: string): Promise<{ policy?: { toolCalls?: number } } | undefined> {
  const store = createFileStateStore({ directory: path.join(project.dir, '.hookwise') });
  return store.read(sessionId, '@hookwise/hook-suggest');
}

const toolResultCount = (request: MessagesRequest) =>
  request.messages
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((part) => (part as { type?: string }).type === 'tool_result').length;

const systemEntriesText = (request: MessagesRequest) => JSON.stringify(request.messages.filter((message) => message.role === 'system'));

describe('hookwise with the real Claude Code', { timeout: 300_000 }, () => {
  it('counts three tool calls made in one prompt', async () => {
    const project = initProject();
    api.setResponder(threeToolCalls());
    const start = api.requests.length;
    const output = await claudeJson(project, ['-p', 'Run three commands']);
    expect(output.result).toBe('Done.');
    const last = api.requests
      .slice(start)
      .filter((request) => request.kind === 'main')
      .at(-1)!;
    expect(toolResultCount(last.body)).toBe(3);
    expect((await suggestState(project, output.session_id))?.policy?.toolCalls).toBe(3);
  });

  it('keeps a command summary through /compact: in the compaction request and in the first request after it', async () => {
    const project = initProject();
    writeBabysitCommand(project.dir);
    api.setResponder(threeToolCalls());
    await claudeJson(project, ['-p', '/babysit watch the build']);

    const beforeCompact = api.requests.length;
    await claudeJson(project, ['-p', '/compact', '-c']);
    const compaction = api.requests.slice(beforeCompact).find((request) => request.kind === 'compaction');
    expect(compaction, 'Claude Code sent no compaction request').toBeDefined();
    // PreCompact stdout becomes the summarizer's additional instructions, in its last user turn.
    const instructions = JSON.stringify(compaction!.body.messages.at(-1));
    expect(instructions).toContain('## ACTIVE COMMAND: /babysit');
    expect(instructions).toContain('BABYSIT RULES: run the tests after every edit');
    // Compaction runs as a sub-agent in 2.1.330 (SubagentStop with agent_type ""): no phase hand-off for it.
    expect(
      readJsonl(path.join(project.dir, '.hookwise', 'logs', 'events.jsonl')).filter((record) => record.type === 'precompact:handoff'),
    ).toEqual([]);

    const afterCompact = api.requests.length;
    await claudeJson(project, ['-p', 'What next?', '-c']);
    const first = api.requests.slice(afterCompact).find((request) => request.kind === 'main');
    expect(first, 'no request after compaction').toBeDefined();
    // SessionStart(source=compact) additionalContext: Claude Code 2.1.330 sends it as a system entry.
    expect(systemEntriesText(first!.body)).toContain('BABYSIT RULES: run the tests after every edit');
  });

  it('produces a suggestion notice at a low threshold without blocking the session', async () => {
    const project = initProject({ '@hookwise/hook-suggest': { toolCalls: 2 } });
    api.setResponder(threeToolCalls());
    const start = api.requests.length;
    const run = await runClaude(project, api.url, ['-p', 'Run three commands', '--output-format', 'stream-json', '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter((line) => line.trim().startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const notices = events.filter(
      (event) => event.type === 'system' && typeof event.content === 'string' && event.content.includes('Consider /compact'),
    );
    expect(notices.length, `no suggestion notice in:\n${run.stdout.slice(0, 4000)}`).toBeGreaterThan(0);
    const result = events.find((event) => event.type === 'result') as { subtype?: string; is_error?: boolean; result?: string } | undefined;
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'Done.' });
    const last = api.requests
      .slice(start)
      .filter((request) => request.kind === 'main')
      .at(-1)!;
    expect(toolResultCount(last.body)).toBe(3);
  });

  it('completes the session normally when a plugin throws', async () => {
    const project = initProject();
    // A plugin whose every hook throws, installed like any package and listed in the config.
    const pluginDir = path.join(project.dir, 'node_modules', 'hookwise-plugin-throws');
    mkdirSync(pluginDir, { recursive: true });
    writeJson(path.join(pluginDir, 'package.json'), { name: 'hookwise-plugin-throws', version: '1.0.0', type: 'module', main: 'index.js' });
    writeFileSync(
      path.join(pluginDir, 'index.js'),
      [
        "import { definePlugin } from '@hookwise/core';",
        'const fail = (point) => () => { throw new Error(`throws on ${point}`); };',
        "const points = ['session:start', 'prompt:submit', 'tool:before', 'tool:after', 'compact:before', 'agent:stop'];",
        "export default definePlugin({ meta: { name: 'throws', version: '1.0.0' }, on: Object.fromEntries(points.map((point) => [point, fail(point)])) });",
      ].join('\n'),
    );
    const configFile = path.join(project.dir, 'hookwise.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as { plugins: Record<string, unknown> };
    writeJson(configFile, { plugins: { 'hookwise-plugin-throws': {}, ...config.plugins } });
    expect(hookwise(['init'], { cwd: project.dir, env: { HOME: project.home } }).code).toBe(0);

    api.setResponder(threeToolCalls());
    const output = await claudeJson(project, ['-p', 'Run three commands']);
    expect(output).toMatchObject({ subtype: 'success', is_error: false, result: 'Done.' });
    // The other plugins still ran, and the failures were logged with the plugin's name.
    expect((await suggestState(project, output.session_id))?.policy?.toolCalls).toBe(3);
    const errors = readJsonl(path.join(project.dir, '.hookwise', 'logs', 'events.jsonl')).filter((record) => record.type === 'hook:error');
    expect(errors.some((record) => record.pluginName === 'throws' && record.point === 'tool:after')).toBe(true);
  });

  it('logs the compaction with its sizes before and after', async () => {
    const project = initProject();
    api.setResponder(threeToolCalls({ inputTokens: 60_000 }));
    const first = await claudeJson(project, ['-p', 'Run three commands']);
    await claudeJson(project, ['-p', '/compact', '-c']);
    api.setResponder(threeToolCalls({ inputTokens: 20_000 }));
    await claudeJson(project, ['-p', 'Run three more', '-c']);

    const logFile = path.join(project.dir, '.hookwise', 'logs', 'compaction.jsonl');
    expect(existsSync(logFile), `no compaction log at ${logFile}`).toBe(true);
    const lines = readJsonl(logFile).filter((record) => record.sessionId === first.session_id);
    const compaction = lines.find((record) => record.type === 'compaction');
    expect(compaction).toMatchObject({ trigger: 'manual' });
    expect(compaction!.tokensBefore).toBeGreaterThanOrEqual(60_000);
    // Claude Code 2.1.330 writes no postTokens: the size after comes from the first measurement after compaction.
    const after = lines.find((record) => typeof record.tokensAfter === 'number');
    expect(after, `no size after compaction in ${JSON.stringify(lines)}`).toBeDefined();
    expect(after!.tokensAfter).toBeLessThan(compaction!.tokensBefore as number);
  });
});
