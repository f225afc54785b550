import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAgileflowCommands } from './active-commands.js';
import { DEFAULT_COMMAND_FOLDERS, findCommandFile } from './command-files.js';
import { readLedger } from './intent-trace.js';

// A FIFO where hook-precompact reads a project file (a planted command file, AgileFlow's state,
// the intent ledger): a plain readFile would wait for a writer forever and keep the hook process
// from exiting. Each read must come back at once with the file refused.
let project: string;

beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'hookwise-precompact-fifo-'));
});

afterEach(() => {
  rmSync(project, { recursive: true, force: true });
});

function fifoAt(relative: string): void {
  const file = path.join(project, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

describe('a FIFO planted where hook-precompact reads a project file', () => {
  it('as a command file: refused with the reason, the lookup goes on', async () => {
    fifoAt('.claude/commands/review.md');
    const lookup = await findCommandFile('review', DEFAULT_COMMAND_FOLDERS, { projectDir: project, homeDir: path.join(project, 'home') });
    expect(lookup.found).toBe(false);
    expect(lookup).toMatchObject({ refused: expect.stringContaining('a FIFO, not a regular file') });
  });

  it("as AgileFlow's session state: no commands, a problem named", async () => {
    fifoAt('docs/09-agents/session-state.json');
    const read = await readAgileflowCommands(project, 'docs/09-agents/session-state.json');
    expect(read.commands).toEqual([]);
    expect(read.problem).toContain('a FIFO, not a regular file');
  });

  it('as the intent ledger: refused, not waited on', async () => {
    fifoAt('.orchestration/agent_trace.jsonl');
    await expect(
      readLedger(project, '.orchestration/agent_trace.jsonl', 'REQ-1', { maxBytes: 65_536, mutatingTools: new Set(['write_to_file']) }),
    ).rejects.toThrow('a FIFO, not a regular file');
  });
});
