import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryStateStore } from '@hookwise/core/host';
import { createSessionState } from '@hookwise/core/plugin';
import { afterEach, describe, expect, it } from 'vitest';
import {
  activateCommand,
  clearActiveCommands,
  deactivateCommand,
  listActiveCommands,
  readAgileflowCommands,
  writeAgileflowPrecompactStamp,
} from './active-commands.js';
import { PLUGIN_NAME } from './meta.js';
import { buildPreservedBlock, shareOut } from './preserved-block.js';

describe('active commands in session state', () => {
  it('keeps name, time and arguments; several at once; the same name once (latest arguments, moved last)', async () => {
    const target = { stateStore: createMemoryStateStore(), sessionId: 's1' };
    await activateCommand(target, 'babysit', 'MODE=loop', { activatedAt: new Date('2026-01-01T00:00:00Z') });
    await activateCommand(target, 'agileflow:story:list', 'EPIC=EP-1', { activatedAt: new Date('2026-01-01T00:01:00Z'), source: 'prompt' });
    await activateCommand(target, 'babysit', 'MODE=once', { activatedAt: new Date('2026-01-01T00:02:00Z') });
    expect(await listActiveCommands(target)).toEqual([
      { name: 'agileflow:story:list', args: 'EPIC=EP-1', activatedAt: '2026-01-01T00:01:00.000Z', source: 'prompt' },
      { name: 'babysit', args: 'MODE=once', activatedAt: '2026-01-01T00:02:00.000Z', source: 'api' },
    ]);
  });

  it('treats story/list and story:list as one command', async () => {
    const target = { stateStore: createMemoryStateStore(), sessionId: 's1' };
    await activateCommand(target, 'story/list');
    await activateCommand(target, 'story:list');
    expect((await listActiveCommands(target)).map((entry) => entry.name)).toEqual(['story:list']);
    expect(await deactivateCommand(target, 'story/list')).toBe(true);
    expect(await deactivateCommand(target, 'story/list')).toBe(false);
  });

  it('sessions do not share their lists; a SessionState target works like store + id', async () => {
    const store = createMemoryStateStore();
    await activateCommand({ stateStore: store, sessionId: 'a' }, 'one');
    await activateCommand(createSessionState(store, 'b', PLUGIN_NAME), 'two');
    expect((await listActiveCommands({ stateStore: store, sessionId: 'a' })).map((entry) => entry.name)).toEqual(['one']);
    expect((await listActiveCommands({ stateStore: store, sessionId: 'b' })).map((entry) => entry.name)).toEqual(['two']);
    await clearActiveCommands({ stateStore: store, sessionId: 'a' });
    expect(await listActiveCommands({ stateStore: store, sessionId: 'a' })).toEqual([]);
  });

  it.each(['../etc/passwd', '/abs', 'a\u0000b'])('refuses %j and stores nothing', async (name) => {
    const target = { stateStore: createMemoryStateStore(), sessionId: 's1' };
    await expect(activateCommand(target, name)).rejects.toThrow(/refused command name/);
    expect(await listActiveCommands(target)).toEqual([]);
  });
});

describe("AgileFlow's session-state.json", () => {
  const made: string[] = [];
  afterEach(() => made.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));
  const project = (state: unknown) => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'hookwise-precompact-agileflow-'));
    made.push(directory);
    mkdirSync(path.join(directory, 'docs/09-agents'), { recursive: true });
    if (state !== undefined)
      writeFileSync(path.join(directory, 'docs/09-agents/session-state.json'), typeof state === 'string' ? state : JSON.stringify(state));
    return directory;
  };

  it('reads active_commands names and types, skipping malformed entries', async () => {
    const dir = project({
      active_commands: [
        { name: 'babysit', type: 'interactive' },
        { name: 'research/ask', type: 'output-only' },
        { nope: 1 },
        'text',
        { name: 'story:list' },
      ],
    });
    expect(await readAgileflowCommands(dir, 'docs/09-agents/session-state.json')).toEqual({
      commands: [{ name: 'babysit', type: 'interactive' }, { name: 'research/ask', type: 'output-only' }, { name: 'story:list' }],
    });
  });

  it('a missing file is no commands; a corrupt one is reported', async () => {
    expect(await readAgileflowCommands(project(undefined), 'docs/09-agents/session-state.json')).toEqual({ commands: [] });
    const corrupt = await readAgileflowCommands(project('{oops'), 'docs/09-agents/session-state.json');
    expect(corrupt.commands).toEqual([]);
    expect(corrupt.problem).toMatch(/not valid JSON/);
  });

  it('leaves the last_precompact_at handshake, keeping the other fields', async () => {
    const dir = project({ active_commands: [{ name: 'babysit' }], other: true });
    await writeAgileflowPrecompactStamp(dir, 'docs/09-agents/session-state.json', new Date('2026-03-01T10:00:00Z'));
    const text = readFileSync(path.join(dir, 'docs/09-agents/session-state.json'), 'utf8');
    expect(JSON.parse(text)).toEqual({
      active_commands: [{ name: 'babysit' }],
      other: true,
      last_precompact_at: '2026-03-01T10:00:00.000Z',
    });
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('does not create the file when AgileFlow has none', async () => {
    const dir = project(undefined);
    await writeAgileflowPrecompactStamp(dir, 'docs/09-agents/session-state.json', new Date());
    expect(() => readFileSync(path.join(dir, 'docs/09-agents/session-state.json'))).toThrow();
  });
});

describe('buildPreservedBlock', () => {
  const section = (name: string, length: number) => ({
    name,
    args: '',
    file: `/p/.claude/commands/${name}.md`,
    summary: `${name}:`.padEnd(length, 'x'),
  });

  it('shareOut gives short parts what they need and splits the rest equally', () => {
    expect(shareOut([100, 5_000, 300], 2_000)).toEqual([100, 1_600, 300]);
    expect(shareOut([10, 10], 100)).toEqual([10, 10]);
    expect(shareOut([], 100)).toEqual([]);
  });

  it('keeps everything when it fits, with one heading per command and labels', () => {
    const block = buildPreservedBlock({ commands: [section('a', 50), section('b', 60)], projectDir: '/p', budgetChars: 8_000 })!;
    expect(block.text).toContain('## ACTIVE COMMAND: /a\nSource: .claude/commands/a.md\n\na:');
    expect(block.labels).toEqual(['/a', '/b']);
    expect(block.cut).toEqual([]);
  });

  it('cuts only the long sections, each with a marker naming its file, and stays within the budget', () => {
    const block = buildPreservedBlock({
      commands: [section('small', 300), section('huge', 20_000)],
      intent: { id: 'REQ-1', text: 'intent '.repeat(140), source: 'ledger' },
      projectDir: '/p',
      budgetChars: 4_000,
    })!;
    expect(block.text.length).toBeLessThanOrEqual(4_000);
    expect(block.cut).toEqual(['/huge']);
    expect(block.text).toContain('small:'.padEnd(300, 'x'));
    expect(block.text).toContain('read the full text in .claude/commands/huge.md]');
    expect(block.labels).toEqual(['/small', '/huge', 'intent REQ-1']);
  });

  it('returns undefined when there is nothing to preserve', () => {
    expect(buildPreservedBlock({ commands: [], projectDir: '/p', budgetChars: 8_000 })).toBeUndefined();
  });
});
