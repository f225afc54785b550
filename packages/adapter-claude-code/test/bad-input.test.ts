import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createFileStateStore } from '@hookwise/core/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createScratchProject, hookwise, readJsonl, snapshotTree, type ScratchProject } from './harness.js';

/**
 * Bad input to `hookwise run`, through the built bin as Claude Code would call it. Each case
 * must end non-blocking (exit 0, never 2), print nothing or one JSON object on stdout, say one
 * clear line on stderr, and leave the session state as it was.
 */
let project: ScratchProject;
const sessionId = 'session-bad-input';

const postToolUse = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: '/nonexistent/transcript.jsonl',
    cwd: '',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'echo 1' },
    tool_response: { stdout: '1', stderr: '' },
    tool_use_id: 'toolu_1',
    ...overrides,
  });

beforeAll(() => {
  assertBuilt();
  project = createScratchProject('hookwise-bad-input-');
  expect(hookwise(['init', '--plugins', 'prune,precompact,suggest'], { cwd: project.dir, env: { HOME: project.home } }).code).toBe(0);
  // A real session with state to protect.
  const first = run(['run', 'PostToolUse'], postToolUse({ cwd: project.dir }));
  expect(first.code).toBe(0);
  expect(existsSync(path.join(project.dir, '.hookwise', 'state', sessionId))).toBe(true);
});
afterAll(() => project?.remove());

function run(args: string[], input: string | Buffer) {
  return hookwise(args, { cwd: project.dir, input, env: { CLAUDE_PROJECT_DIR: project.dir, HOME: project.home } });
}

const stateDir = () => path.join(project.dir, '.hookwise', 'state');

function expectNoOp(result: ReturnType<typeof run>, message: RegExp) {
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
}

const invalidUtf8 = Buffer.concat([
  Buffer.from('{"session_id":"'),
  Buffer.from([0xc3, 0x28, 0xff]),
  Buffer.from('","hook_event_name":"PostToolUse","tool_name":"Bash"}'),
]);

describe('hookwise run with bad input', () => {
  it.each([
    ['empty stdin', ['run', 'PostToolUse'], '', /no input on stdin/],
    ['whitespace only', ['run', 'PostToolUse'], ' \n\t ', /no input on stdin/],
    ['invalid JSON', ['run', 'PostToolUse'], '{"session_id": "x",', /not valid JSON/],
    ['a JSON array', ['run', 'PostToolUse'], '[1,2,3]', /must be a JSON object/],
    ['invalid UTF-8', ['run', 'PostToolUse'], invalidUtf8, /not valid UTF-8/],
    ['an unknown event', ['run', 'NoSuchEvent'], postToolUse(), /unknown event "NoSuchEvent"/],
    ['no event at all', ['run'], postToolUse(), /no event named/],
    [
      'a missing session id',
      ['run', 'PostToolUse'],
      JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Bash' }),
      /invalid input: .*session_id/,
    ],
    [
      'a missing tool name',
      ['run', 'PostToolUse'],
      JSON.stringify({ session_id: sessionId, hook_event_name: 'PostToolUse' }),
      /invalid input: .*tool_name/,
    ],
    [
      'a field of the wrong type',
      ['run', 'PreCompact'],
      JSON.stringify({ session_id: sessionId, hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 42 }),
      /invalid input: .*custom_instructions/,
    ],
    ['input of another event', ['run', 'PreToolUse'], postToolUse(), /is a "PostToolUse" event/],
    [
      'a path-traversal session id',
      ['run', 'PostToolUse'],
      postToolUse({ session_id: '../../etc/passwd' }),
      /refused session id "\.\.\/\.\.\/etc\/passwd"/,
    ],
    ['an absolute session id', ['run', 'PostToolUse'], postToolUse({ session_id: '/tmp/evil' }), /refused session id/],
    ['a session id with a NUL byte', ['run', 'PostToolUse'], postToolUse({ session_id: 'abc\u0000def' }), /refused session id/],
    [
      'a session id with control characters',
      ['run', 'SessionStart'],
      JSON.stringify({ session_id: 'a\u001b[31mred', hook_event_name: 'SessionStart', source: 'startup' }),
      /refused session id/,
    ],
    [
      'a 10,000-character session id',
      ['run', 'PostToolUse'],
      postToolUse({ session_id: 'x'.repeat(10_000) }),
      /refused session id "x{80}…"/,
    ],
  ] as const)('%s ends as a no-op with one clear line', (_name, args, input, message) => {
    const before = snapshotTree(stateDir());
    expectNoOp(run([...args], input), message);
    expect(snapshotTree(stateDir())).toEqual(before);
  });

  it('refuses 10 MB of stdin without reading it as an event', () => {
    const before = snapshotTree(stateDir());
    const huge = postToolUse({ tool_response: { stdout: 'x'.repeat(10 * 1024 * 1024) } });
    expectNoOp(run(['run', 'PostToolUse'], huge), /stdin has \d+ bytes, more than the 8388608 accepted/);
    expect(snapshotTree(stateDir())).toEqual(before);
  });

  it('records internal refusals in the event log as cli:error', () => {
    run(['run', 'PostToolUse'], '{broken');
    const records = readJsonl(path.join(project.dir, '.hookwise', 'logs', 'events.jsonl')).filter((record) => record.type === 'cli:error');
    expect(records.some((record) => String(record.message).includes('not valid JSON'))).toBe(true);
  });

  it('refuses hostile command names from a prompt and from the command line, creating no file outside .hookwise', () => {
    const before = snapshotTree(stateDir());
    const prompt = run(
      ['run', 'UserPromptSubmit'],
      JSON.stringify({ session_id: sessionId, hook_event_name: 'UserPromptSubmit', prompt: '/../../../etc/passwd now' }),
    );
    expect(prompt.code).toBe(0);
    expect(prompt.stdout === '' || JSON.parse(prompt.stdout)).toBeTruthy();
    expect(snapshotTree(stateDir())).toEqual(before);

    const command = hookwise(['command', 'activate', '../../outside', '--session', sessionId], {
      cwd: project.dir,
      env: { HOME: project.home },
    });
    expect(command.code).toBe(1);
    expect(command.stderr.trim().split('\n')).toHaveLength(1);
    expect(command.stderr).toMatch(/refused command name|\.\./);
    expect(existsSync(path.join(project.dir, '..', 'outside'))).toBe(false);
  });

  it('keeps counting normally after all of it', async () => {
    expect(run(['run', 'PostToolUse'], postToolUse()).code).toBe(0);
    const state = await createFileStateStore({ directory: path.join(project.dir, '.hookwise') }).read<{ policy: { toolCalls: number } }>(
      sessionId,
      '@hookwise/hook-suggest',
    );
    // The call in beforeAll and this one; none of the bad ones counted.
    expect(state?.policy.toolCalls).toBe(2);
  });
});

describe('hookwise run with a config that stopped validating', () => {
  it('steps aside with one line naming the file and the bad key, and leaves state alone', async () => {
    const broken = createScratchProject('hookwise-bad-config-');
    try {
      const env = { CLAUDE_PROJECT_DIR: broken.dir, HOME: broken.home };
      expect(hookwise(['init', '--plugins', 'suggest'], { cwd: broken.dir, env }).code).toBe(0);
      const event = postToolUse({ cwd: broken.dir });
      expect(hookwise(['run', 'PostToolUse'], { cwd: broken.dir, input: event, env }).code).toBe(0);
      // An edit after init: the fast path rebuilds its bundle and must validate like loadConfig.
      writeFileSync(
        path.join(broken.dir, 'hookwise.config.json'),
        JSON.stringify({ plugins: { '@hookwise/hook-suggest': {} }, hookTimeoutMS: 100 }),
      );
      const result = hookwise(['run', 'PostToolUse'], { cwd: broken.dir, input: event, env });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/hookwise\.config\.json[\s\S]*Unrecognized key: "hookTimeoutMS"/);
      const state = await createFileStateStore({ directory: path.join(broken.dir, '.hookwise') }).read<{ policy: { toolCalls: number } }>(
        sessionId,
        '@hookwise/hook-suggest',
      );
      expect(state?.policy.toolCalls).toBe(1);
    } finally {
      broken.remove();
    }
  });
});
