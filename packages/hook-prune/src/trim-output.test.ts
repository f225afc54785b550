import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createCharsTokenCounter,
  createEngine,
  createMemoryEventLog,
  createMemoryLogger,
  createMemoryStateStore,
} from '@hookwise/core/host';
import { afterEach, describe, expect, it } from 'vitest';
import { prune, trimmedOutputPath } from './plugin.js';
import { textLength, trimNote, trimToolOutput } from './trim-output.js';

const note = (cut: number) => trimNote(cut, '/p/.hookwise/outputs/s/t.txt');
const lines = (count: number, prefix = 'line') => Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`).join('\n');

/** Same keys, same types, all the way down: what the host's output schema checks. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : ['array of', shapeOf(value[0])];
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]));
  return typeof value;
}

// Representative outputs, shaped as Claude Code 2.1.330's sdk-tools.d.ts declares them.
const big = lines(5_000);
const outputs: Record<string, unknown> = {
  Bash: { stdout: big, stderr: '', interrupted: false, isImage: false },
  Grep: { mode: 'content', numFiles: 3, filenames: ['a.ts', 'b.ts', 'c.ts'], content: big, numLines: 5_000 },
  Glob: {
    durationMs: 12,
    numFiles: 4_000,
    filenames: Array.from({ length: 4_000 }, (_, index) => `/repo/src/module-${index}/index.ts`),
    truncated: false,
  },
  WebFetch: { bytes: 90_000, code: 200, codeText: 'OK', result: big, durationMs: 900, url: 'https://example.invalid/' },
  Agent: {
    agentId: 'a1',
    content: [{ type: 'text', text: big }],
    totalToolUseCount: 3,
    totalDurationMs: 10,
    totalTokens: 100,
    usage: {
      input_tokens: 1,
      output_tokens: 2,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      server_tool_use: null,
      service_tier: null,
      cache_creation: null,
    },
  },
  'mcp (string)': big,
  'mcp (content blocks)': [{ type: 'text', text: big }],
  'mcp (object)': { rows: big, count: 5_000 },
};

describe('trimToolOutput', () => {
  for (const [tool, output] of Object.entries(outputs)) {
    it(`${tool}: same shape, head and tail kept, the note in between, the full text given back`, () => {
      const trimmed = trimToolOutput(output, note)!;
      expect(trimmed).toBeDefined();
      expect(shapeOf(trimmed.value)).toEqual(shapeOf(output));
      expect(trimmed.charsAfter).toBeLessThan(12_000);
      expect(trimmed.charsBefore).toBe(textLength(output));
      const text = JSON.stringify(trimmed.value);
      expect(text).toContain('characters cut by hookwise; the full output is in /p/.hookwise/outputs/s/t.txt');
      if (tool !== 'Glob') {
        expect(text).toContain('line 1\\nline 2');
        expect(text).toContain('line 5000');
        expect(trimmed.fullText).toBe(big);
      } else {
        expect(text).toContain('/repo/src/module-0/index.ts');
        expect(text).toContain('/repo/src/module-3999/index.ts');
        expect(trimmed.fullText.split('\n')).toHaveLength(4_000);
      }
    });
  }

  it('leaves outputs at or under the threshold alone, and objects of many small fields (nothing to cut)', () => {
    expect(trimToolOutput({ stdout: 'x'.repeat(10_000), stderr: '' }, note)).toBeUndefined();
    expect(trimToolOutput({ stdout: 'x'.repeat(10_001), stderr: '' }, note)).toBeDefined();
    expect(
      trimToolOutput(Object.fromEntries(Array.from({ length: 3_000 }, (_, index) => [`k${index}`, 'short value'])), note),
    ).toBeUndefined();
    expect(trimToolOutput({ stdout: 'x'.repeat(30_000) }, note, { overChars: 50_000 })).toBeUndefined();
  });

  it('saves several cut fields under a header each, and never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(10_000);
    const trimmed = trimToolOutput({ stdout: emoji, stderr: big }, note)!;
    expect(trimmed.fullText).toBe(`=== stdout ===\n${emoji}\n\n=== stderr ===\n${big}`);
    const stdout = (trimmed.value as { stdout: string }).stdout;
    expect(() => encodeURIComponent(stdout)).not.toThrow();
  });
});

describe('the plugin on tool:after', () => {
  const directories: string[] = [];
  afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

  function setup(options?: Parameters<typeof prune>[0], engineOptions: { ephemeral?: boolean; dryRun?: boolean } = {}) {
    const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-trim-'));
    directories.push(projectDir);
    const eventLog = createMemoryEventLog();
    const engine = createEngine({
      config: { plugins: [prune(options)] },
      projectDir,
      host: 'test',
      eventLog,
      stateStore: createMemoryStateStore(),
      logger: createMemoryLogger(),
      tokenCounter: createCharsTokenCounter(4),
      ...(engineOptions.ephemeral ? { ephemeral: true } : {}),
      ...(engineOptions.dryRun ? { dryRun: true } : {}),
    });
    const after = (toolName: string, output: unknown, extra: Record<string, unknown> = {}) =>
      engine.emit('tool:after', { sessionId: 's1', toolName, input: {}, output, ok: true, toolUseId: 'toolu_1', ...extra });
    return { projectDir, eventLog, after };
  }

  it('trims an oversized Bash output, saves the original under .hookwise/outputs/<session>/<id>.txt, logs it', async () => {
    const { projectDir, eventLog, after } = setup();
    const outcome = await after('Bash', outputs['Bash']);
    expect(outcome.errors).toEqual([]);
    const file = path.join(projectDir, trimmedOutputPath('s1', 'toolu_1'));
    expect(readFileSync(file, 'utf8')).toBe(big);
    const value = outcome.value as { stdout: string; stderr: string; interrupted: boolean };
    expect(value).toMatchObject({ stderr: '', interrupted: false, isImage: false });
    expect(value.stdout).toContain(`the full output is in ${file}`);
    expect(await eventLog.readAll()).toMatchObject([
      { type: 'prune:trimmed', toolName: 'Bash', toolUseId: 'toolu_1', path: '.hookwise/outputs/s1/toolu_1.txt' },
    ]);
  });

  it('leaves Read, Edit, Write, sub-agent reports, failures, small outputs, unsafe ids and ephemeral hosts alone; a replay writes nothing', async () => {
    const { after, projectDir } = setup();
    for (const tool of ['Read', 'Edit', 'Write', 'Task', 'Agent']) expect((await after(tool, outputs['Bash'])).value).toBeUndefined();
    expect((await after('Bash', outputs['Bash'], { ok: false })).value).toBeUndefined();
    expect((await after('Bash', { stdout: 'ok', stderr: '', interrupted: false })).value).toBeUndefined();
    expect((await after('Bash', outputs['Bash'], { toolUseId: '../../escape' })).value).toBeUndefined();
    expect((await after('Bash', outputs['Bash'], { toolUseId: undefined })).value).toBeUndefined();
    expect(existsSync(path.join(projectDir, '.hookwise', 'outputs'))).toBe(false);
    // An ephemeral host (no files) cannot save the full text: the output stays whole.
    const memoryOnly = setup(undefined, { ephemeral: true });
    expect((await memoryOnly.after('Bash', outputs['Bash'])).value).toBeUndefined();
    expect(existsSync(path.join(memoryOnly.projectDir, '.hookwise'))).toBe(false);
    // A replay (a dry run) is shown what would be cut, and nothing is written.
    const replay = setup(undefined, { ephemeral: true, dryRun: true });
    expect((await replay.after('Bash', outputs['Bash'])).value).toMatchObject({
      stdout: expect.stringContaining('characters cut by hookwise'),
    });
    expect(existsSync(path.join(replay.projectDir, '.hookwise'))).toBe(false);
  });

  it('options: a threshold, an exception list, or off', async () => {
    expect((await setup({ trimOutputs: { overChars: 100_000 } }).after('Bash', outputs['Bash'])).value).toBeUndefined();
    expect((await setup({ trimOutputs: { exceptTools: [] } }).after('Read', outputs['Bash'])).value).toBeDefined();
    expect((await setup({ trimOutputs: false }).after('Bash', outputs['Bash'])).value).toBeUndefined();
  });

  it("never trims what a host's read, write or sub-agent tools return (Gemini CLI's and Cline's too)", async () => {
    for (const tool of ['Read', 'read', 'read_file', 'read_many_files', 'read_files', 'write_file', 'replace', 'editor', 'spawn_agent'])
      expect((await setup().after(tool, outputs['Bash'])).value, tool).toBeUndefined();
    expect((await setup().after('run_shell_command', outputs['Bash'])).value).toBeDefined();
  });

  it('refuses to write through a link planted in .hookwise/outputs, and then leaves the output whole', async () => {
    const { projectDir, after } = setup();
    const outside = mkdtempSync(path.join(tmpdir(), 'hookwise-outside-'));
    directories.push(outside);
    mkdirSync(path.join(projectDir, '.hookwise', 'outputs'), { recursive: true });
    symlinkSync(outside, path.join(projectDir, '.hookwise', 'outputs', 's1'));
    const outcome = await after('Bash', outputs['Bash']);
    expect(outcome.value).toBeUndefined();
    expect(existsSync(path.join(outside, 'toolu_1.txt'))).toBe(false);
  });

  it('refuses .hookwise itself or .hookwise/outputs as a link, even to a folder inside the project', async () => {
    for (const linked of ['.hookwise', path.join('.hookwise', 'outputs')]) {
      const { projectDir, after } = setup();
      const target = path.join(projectDir, 'src');
      mkdirSync(target, { recursive: true });
      mkdirSync(path.dirname(path.join(projectDir, linked)), { recursive: true });
      symlinkSync(target, path.join(projectDir, linked));
      const outcome = await after('Bash', outputs['Bash']);
      expect(outcome.value).toBeUndefined();
      expect(readdirSync(target, { recursive: true })).toEqual([]);
    }
  });
});
