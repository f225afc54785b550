import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installProject, specifiersOf, startRegistry, type InstallKind } from '../../../test-support/registry.js';
import { assertBuilt, callHook, cleanEnv, createScratchProject, LINKED_PACKAGES, type HookCall } from './harness.js';

/**
 * Issue 15's reproductions, run against what a user gets: every package published to a local
 * registry, installed by name with npm or with pnpm (`kind`) into a fresh project outside the
 * workspace, `npx hookwise init`, then `hookwise run` as Claude Code starts it (a new process
 * per call, the JSON on stdin). Each test failed on the code before the fix (noted per test).
 * No test asserts a wall-clock time: a hang shows as the process still running when the
 * harness kills it. `attack.npm.test.ts` and `attack.pnpm.test.ts` run it.
 */
export function attackSuite(kind: InstallKind): void {
  let root: string;
  let project: string;
  let bin: string;
  let mountedHere: string[] = [];

  const SESSION = 'attack-session';
  const suggestState = () => path.join(project, '.hookwise', 'state', SESSION, '@hookwise+hook-suggest.json');
  const toolCalls = (): number | undefined =>
    existsSync(suggestState())
      ? (JSON.parse(readFileSync(suggestState(), 'utf8')) as { policy: { toolCalls: number } }).policy.toolCalls
      : undefined;
  const events = (): Array<Record<string, unknown>> => {
    const file = path.join(project, '.hookwise', 'logs', 'events.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  const postToolUse = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      session_id: SESSION,
      transcript_path: path.join(project, 'no-transcript.jsonl'),
      cwd: project,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'a\n' },
      tool_use_id: 'toolu_1',
      ...extra,
    });

  type Call = HookCall;

  /** One hook call as Claude Code makes it; killed after `killAfterMs` (a hang shows as signal SIGKILL). */
  const call = (
    event: string,
    input: string,
    options: { env?: Record<string, string>; killAfterMs?: number; onSpawn?: (pid: number) => void } = {},
  ): Promise<Call> =>
    callHook(bin, event, input, {
      ...options,
      cwd: project,
      env: { CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home'), ...options.env },
    });

  const stderrLines = (result: Call) => result.stderr.split('\n').filter((line) => line.trim() !== '');

  function writeConfig(extra: Record<string, unknown> = {}): void {
    writeFileSync(
      path.join(project, 'hookwise.config.json'),
      JSON.stringify(
        {
          plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 100000 } },
          on: ['./attack-hooks.mjs'],
          hookTimeoutMs: 2000,
          ...extra,
        },
        null,
        2,
      ),
    );
  }

  function sh(command: string, args: string[]): { status: number | null; stderr: string } {
    const result = spawnSync(command, args, { encoding: 'utf8' });
    return { status: result.status, stderr: `${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
  }

  /** Mounts a tmpfs (root only); undefined when this machine refuses, with the reason in `refused`. */
  let mountRefused: string | undefined;
  function mountTmpfs(target: string, options: string): boolean {
    const result = sh('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', target]);
    if (result.status !== 0) {
      mountRefused = `mount -t tmpfs -o ${options} refused: ${result.stderr.trim() || `exit ${result.status}`}`;
      return false;
    }
    mountedHere.push(target);
    return true;
  }
  function unmount(target: string): void {
    sh('umount', [target]);
    mountedHere = mountedHere.filter((entry) => entry !== target);
  }

  beforeAll(async () => {
    assertBuilt();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), `hookwise-attack-${kind}-`)));
    project = path.join(root, 'project');
    mkdirSync(path.join(root, 'home'));
    const registry = await startRegistry(LINKED_PACKAGES);
    try {
      installProject(kind, registry, project, specifiersOf(LINKED_PACKAGES), {
        ...cleanEnv(),
        HOME: process.env.HOME,
      } as NodeJS.ProcessEnv);
    } finally {
      await registry.stop();
    }
    const init = spawnSync('npx', ['--no-install', 'hookwise', 'init', '--plugins', 'prune,precompact,suggest'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...cleanEnv(), CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') } as NodeJS.ProcessEnv,
    });
    if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
    bin = path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
    // One hooks file whose behaviour the test picks per call ($HW_ATTACK), so the bundle is built once.
    writeFileSync(
      path.join(project, 'attack-hooks.mjs'),
      `import { writeFileSync, writeSync } from 'node:fs';
  import { spawn, spawnSync } from 'node:child_process';
  const mode = () => process.env.HW_ATTACK ?? '';
  if (mode() === 'import-loop') for (;;) {}
  if (mode() === 'import-throw') throw new Error('attack module failed at import');
  export default {
    'tool:after': [
      { name: 'witness', handler: () => ({ context: 'witness-ran' }) },
      {
        name: 'attack',
        handler: async () => {
          const m = mode();
          if (process.env.HW_STARTED) writeFileSync(process.env.HW_STARTED, 'started');
          if (m === 'sync-loop') for (;;) {}
          if (m === 'exit2') process.exit(2);
          if (m === 'exit2-later') { setTimeout(() => process.exit(2), 1); await new Promise((r) => setTimeout(r, 50)); }
          if (m === 'exitcode') process.exitCode = 2;
          if (m === 'fd1') {
            writeSync(1, 'JUNK-FD1\\n');
            spawnSync('echo', ['JUNK-CHILD-SYNC'], { stdio: 'inherit' });
            await new Promise((r) => spawn('echo', ['JUNK-CHILD'], { stdio: 'inherit' }).on('exit', r));
            await new Promise((r) => spawn('echo', ['JUNK-CHILD-ARRAY'], { stdio: ['ignore', 1, 2] }).on('exit', r));
          }
          if (m === 'throw') throw new Error('attack hook failed on purpose');
          if (m === 'stray') {
            setTimeout(() => { throw new Error('stray timer failure'); }, 0);
            void Promise.reject(new Error('stray rejection'));
            await new Promise((r) => setTimeout(r, 20));
          }
          if (m === 'never') await new Promise(() => {});
          if (m === 'slow') await new Promise((r) => setTimeout(r, 120000));
          return undefined;
        },
      },
    ],
  };
  `,
    );
    writeConfig();
    // First call builds the bundle for this config.
    const first = spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], {
      cwd: project,
      input: postToolUse(),
      encoding: 'utf8',
      env: { ...cleanEnv(), CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') } as NodeJS.ProcessEnv,
    });
    if (first.status !== 0) throw new Error(`first call failed: ${first.stderr}`);
  }, 900_000);

  afterAll(() => {
    for (const target of [...mountedHere]) unmount(target);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  beforeEach(() => {
    // Each test starts from a project whose state and log are its own.
    rmSync(path.join(project, '.hookwise', 'state'), { recursive: true, force: true });
    rmSync(path.join(project, '.hookwise', 'logs'), { recursive: true, force: true });
  });

  describe('links inside .hookwise (issue 15 §1; before: targets overwritten or appended to)', () => {
    it('a state file linked to an outside file: the target is left alone, one line names the link', async () => {
      const outside = path.join(root, 'outside-state.json');
      writeFileSync(outside, '{"keep":true}');
      mkdirSync(path.dirname(suggestState()), { recursive: true });
      symlinkSync(outside, suggestState());
      const result = await call('PostToolUse', postToolUse());
      expect(result.code).toBe(0);
      expect(readFileSync(outside, 'utf8')).toBe('{"keep":true}');
      expect(result.stderr).toMatch(/refused .*@hookwise\+hook-suggest\.json: it is a symbolic link \(to ".*outside-state\.json"\)/);
      expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
    });

    it('a linked session folder and a linked events.jsonl get nothing written', async () => {
      const outsideDir = path.join(root, 'outside-session');
      const outsideLog = path.join(root, 'outside-log.txt');
      rmSync(outsideDir, { recursive: true, force: true });
      mkdirSync(outsideDir);
      writeFileSync(outsideLog, 'keep\n');
      mkdirSync(path.join(project, '.hookwise', 'state'), { recursive: true });
      mkdirSync(path.join(project, '.hookwise', 'logs'), { recursive: true });
      symlinkSync(outsideDir, path.join(project, '.hookwise', 'state', SESSION));
      symlinkSync(outsideLog, path.join(project, '.hookwise', 'logs', 'events.jsonl'));
      const result = await call('PostToolUse', postToolUse({ tool_name: 'Read' }));
      expect(result.code).toBe(0);
      expect(readdirSync(outsideDir)).toEqual([]);
      expect(readFileSync(outsideLog, 'utf8')).toBe('keep\n');
      expect(result.stderr).toMatch(/symbolic link/);
    });

    it('.hookwise itself linked elsewhere: no state there, and a bundle planted there is never loaded', async () => {
      const elsewhere = path.join(root, 'elsewhere');
      rmSync(elsewhere, { recursive: true, force: true });
      mkdirSync(path.join(elsewhere, 'cache', 'claude-code'), { recursive: true });
      const real = path.join(root, 'real-hookwise');
      rmSync(real, { recursive: true, force: true });
      execFileSync('mv', [path.join(project, '.hookwise'), real]);
      // A manifest that would pass every freshness check, naming a bundle that leaves a mark if it ever runs.
      const manifest = JSON.parse(readFileSync(path.join(real, 'cache', 'claude-code', 'run-bundle.json'), 'utf8')) as { bundle: string };
      writeFileSync(path.join(elsewhere, 'cache', 'claude-code', 'run-bundle.json'), JSON.stringify(manifest));
      const mark = path.join(root, 'planted-bundle-ran');
      writeFileSync(
        path.join(elsewhere, 'cache', 'claude-code', manifest.bundle),
        `require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'ran'); exports.run = () => process.exit(0);`,
      );
      symlinkSync(elsewhere, path.join(project, '.hookwise'));
      try {
        const result = await call('PostToolUse', postToolUse());
        expect(result.code).toBe(0);
        expect(existsSync(mark)).toBe(false);
        expect(existsSync(path.join(elsewhere, 'state'))).toBe(false);
        expect(stderrLines(result)).toEqual([
          expect.stringMatching(/refused .*\.hookwise: it is a symbolic link .*remove it; nothing done/),
        ]);
      } finally {
        rmSync(path.join(project, '.hookwise'));
        execFileSync('mv', [real, path.join(project, '.hookwise')]);
      }
    });
  });

  describe('no lost update (§2; before: a mkdir-ed lock cost 5 s and lost the update; 300 concurrent calls lost 178)', () => {
    it("a lock left by a killed process (mkdir of the lock) does not lose the next update; dead writers' temp files are removed", async () => {
      expect((await call('PostToolUse', postToolUse())).code).toBe(0);
      expect(toolCalls()).toBe(1);
      mkdirSync(`${suggestState()}.lock`);
      const orphan = `${suggestState()}.999999999.abc123.tmp`;
      writeFileSync(orphan, '{"half');
      const result = await call('PostToolUse', postToolUse());
      expect(result.code).toBe(0);
      expect(toolCalls()).toBe(2);
      expect(existsSync(`${suggestState()}.lock`)).toBe(false);
      expect(existsSync(orphan)).toBe(false);
    });

    it('300 concurrent calls on one session count 300', async () => {
      // What is tested is that contention loses nothing: no update is dropped because its hook
      // timed out (most of them do here: 2 s per hook) or a lock went stale. The call deadline is
      // raised because 300 node starts on a shared 2-core machine can take longer than Claude
      // Code's 60 s (measured: ~100 s at a load average of 80); a call that reaches its deadline
      // exits without its update, which would be the machine's speed, not contention.
      const results = await Promise.all(
        Array.from({ length: 300 }, () =>
          call('PostToolUse', postToolUse(), { env: { HOOKWISE_CALL_TIMEOUT_MS: '400000' }, killAfterMs: 420_000 }),
        ),
      );
      expect(results.filter((result) => result.code !== 0).map((result) => `${result.code}/${result.signal}: ${result.stderr}`)).toEqual(
        [],
      );
      expect(results.filter((result) => /deadline/.test(result.stderr))).toEqual([]);
      const otherLines = [
        ...new Set(results.flatMap((result) => stderrLines(result)).filter((line) => !/did not settle within/.test(line))),
      ];
      expect(toolCalls(), otherLines.join('\n')).toBe(300);
    }, 480_000);
  });

  describe('never hangs (§3, §6, §7; before: a FIFO hung until killed, a never-settling hook exited silently)', () => {
    it.each(['PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop', 'PreCompact', 'PostCompact', 'SubagentStop'])(
      'a FIFO as transcript_path of %s is refused, not opened',
      async (event) => {
        const fifo = path.join(root, `fifo-${event}`);
        if (!existsSync(fifo)) expect(sh('mkfifo', [fifo]).status).toBe(0);
        const payloads: Record<string, Record<string, unknown>> = {
          PostToolUse: { tool_name: 'Bash', tool_input: {}, tool_response: {} },
          PostToolUseFailure: { tool_name: 'Bash', tool_input: {}, error: 'boom' },
          UserPromptSubmit: { prompt: 'hello' },
          Stop: { stop_hook_active: false },
          PreCompact: { trigger: 'auto', custom_instructions: null },
          PostCompact: { trigger: 'auto', compact_summary: 'summary' },
          SubagentStop: { stop_hook_active: false },
        };
        const result = await call(
          event,
          JSON.stringify({ session_id: SESSION, transcript_path: fifo, cwd: project, hook_event_name: event, ...payloads[event] }),
          { killAfterMs: 20_000 },
        );
        expect(result.signal).toBeNull();
        expect(result.code).toBe(0);
        expect(result.stderr).toMatch(/is a FIFO, not a transcript file/);
      },
    );

    it("a hook that never settles is named on stderr and in the event log; the other hooks' output is printed", async () => {
      const result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'never' } });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
      expect(result.stderr).toMatch(/config › attack .*did not settle within 2000 ms/);
      expect(events()).toContainEqual(expect.objectContaining({ type: 'hook:error', hookName: 'attack', kind: 'timeout' }));
    });

    it('the whole call ends at its deadline with exit 0 and a cli:timeout record', async () => {
      // A per-hook deadline longer than the call's: the call's deadline must end it.
      writeConfig({ hookTimeoutMs: 600_000 });
      try {
        const result = await call('PostToolUse', postToolUse(), {
          env: { HW_ATTACK: 'slow', HOOKWISE_CALL_TIMEOUT_MS: '3000' },
          killAfterMs: 60_000,
        });
        expect(result.signal).toBeNull();
        expect(result.code).toBe(0);
        expect(stderrLines(result)).toEqual([expect.stringMatching(/passed its 3000 ms deadline .* while running the hooks/)]);
        expect(events()).toContainEqual(expect.objectContaining({ type: 'cli:timeout', stage: 'running the hooks' }));
      } finally {
        writeConfig();
      }
    });

    it.each([
      ['the run bundle', {}],
      ['the unbundled path', { HOOKWISE_NO_BUNDLE: '1' }],
    ])(
      "a hook stuck in a synchronous loop is stopped at its deadline, named on stderr and in the event log; the others' output is printed (%s)",
      async (_path, env) => {
        // Before: no timer can fire while the loop spins, so the call ran until the harness killed it.
        const result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'sync-loop', ...env }, killAfterMs: 60_000 });
        expect(result.signal).toBeNull();
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
        expect(stderrLines(result)).toEqual([
          expect.stringMatching(
            /config › attack on tool:after failed: ran synchronously for \d+ ms of CPU.* without returning and was stopped \(a synchronous loop\?\)/,
          ),
        ]);
        expect(events()).toContainEqual(expect.objectContaining({ type: 'hook:error', hookName: 'attack', kind: 'timeout' }));
        expect(toolCalls()).toBe(1); // the other plugins ran and saved their state
      },
    );

    it('a hook module stuck in a loop at import ends the call at its deadline, naming the module, with exit 0 and a cli:timeout record', async () => {
      // Before: stopped at the deadline, but with no event-log record and no module named.
      const result = await call('PostToolUse', postToolUse(), {
        env: { HW_ATTACK: 'import-loop', HOOKWISE_CALL_TIMEOUT_MS: '3000' },
        killAfterMs: 60_000,
      });
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(stderrLines(result)).toEqual([
        expect.stringMatching(
          /passed its 3000 ms deadline .* while loading the config and plugins \(\.\/attack-hooks\.mjs was still running its top level: a loop at import\?\); no plugin output to print, exit 0/,
        ),
      ]);
      expect(events()).toContainEqual(
        expect.objectContaining({ type: 'cli:timeout', stage: 'loading the config and plugins', module: './attack-hooks.mjs' }),
      );
    });

    it('a hook module that throws at import ends the call with one line naming it and a cli:error record', async () => {
      const result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'import-throw' } });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(stderrLines(result)).toEqual([
        expect.stringMatching(/hookwise\.config\.json: could not import \.\/attack-hooks\.mjs: attack module failed at import/),
      ]);
      expect(events()).toContainEqual(
        expect.objectContaining({ type: 'cli:error', message: expect.stringMatching(/could not import \.\/attack-hooks\.mjs/) }),
      );
    });

    it('a config module stuck in a loop at import ends the call at its deadline, naming the config, with exit 0 and a cli:timeout record', async () => {
      // Before: stopped at the deadline, but with no event-log record.
      const configModule = path.join(project, 'hookwise.config.mjs'); // found before hookwise.config.json
      writeFileSync(configModule, 'for (;;) {}\nexport default {};\n');
      try {
        const result = await call('PostToolUse', postToolUse(), { env: { HOOKWISE_CALL_TIMEOUT_MS: '3000' }, killAfterMs: 60_000 });
        expect(result.signal).toBeNull();
        expect(result.code).toBe(0);
        expect(stderrLines(result)).toEqual([
          expect.stringMatching(
            /passed its 3000 ms deadline .* while loading the config and plugins \(.*hookwise\.config\.mjs was still running its top level: a loop at import\?\)/,
          ),
        ]);
        expect(events()).toContainEqual(
          expect.objectContaining({ type: 'cli:timeout', stage: 'loading the config and plugins', module: configModule }),
        );
      } finally {
        rmSync(configModule, { force: true });
      }
    });

    it('SIGTERM ends a call promptly with exit 0 and a cli:signal record', async () => {
      const started = path.join(root, 'sigterm-started');
      rmSync(started, { force: true });
      let pid = 0;
      const running = call('PostToolUse', postToolUse(), {
        env: { HW_ATTACK: 'slow', HW_STARTED: started },
        killAfterMs: 60_000,
        onSpawn: (value) => (pid = value),
      });
      while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
      process.kill(pid, 'SIGTERM');
      const result = await running;
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/stopped by SIGTERM while running the hooks/);
      expect(events()).toContainEqual(expect.objectContaining({ type: 'cli:signal' }));
    });
  });

  describe('plugin code cannot break the contract (§5; before: exit 2, junk before the JSON)', () => {
    it("process.exit(2) in a hook: exit 0, the hook is named, the others' output printed", async () => {
      const result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'exit2' } });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
      expect(result.stderr).toMatch(/config › attack .*process\.exit\(2\) was called by plugin code/);
    });

    it('an error thrown or a promise rejected outside any hook is one ignored line each; the call goes on', async () => {
      const result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'stray' } });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
      expect(stderrLines(result).sort()).toEqual([
        'hookwise run PostToolUse: plugin code failed outside a hook (ignored): stray rejection',
        'hookwise run PostToolUse: plugin code failed outside a hook (ignored): stray timer failure',
      ]);
    });

    it('process.exit(2) from a timer and process.exitCode = 2 do not change the exit code', async () => {
      for (const mode of ['exit2-later', 'exitcode']) {
        const result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: mode } });
        expect(result.code, mode).toBe(0);
        expect(JSON.parse(result.stdout), mode).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
      }
    });

    it.each([
      ['a socket (Node parent)', null],
      ['a pipe (stderr a pipe too)', '2> "$ERR" | cat; cat "$ERR" >&2'],
      ['a file', '> "$OUT" 2> "$ERR"; cat "$OUT"; cat "$ERR" >&2'],
      ['a pipe (stderr a socket)', '| cat'],
    ])('writes to fd 1 and children with inherited stdout never reach stdout when it is %s', async (_kind, redirect) => {
      const input = path.join(root, 'fd1-input.json');
      writeFileSync(input, postToolUse());
      let result: Call;
      if (redirect === null) result = await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'fd1' } });
      else {
        const out = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" run PostToolUse < "${input}" ${redirect}`], {
          cwd: project,
          encoding: 'utf8',
          env: {
            ...cleanEnv(),
            CLAUDE_PROJECT_DIR: project,
            HOME: path.join(root, 'home'),
            HW_ATTACK: 'fd1',
            OUT: path.join(root, 'fd1-out.txt'),
            ERR: path.join(root, 'fd1-err.txt'),
          } as NodeJS.ProcessEnv,
        });
        result = { code: out.status, signal: out.signal, stdout: out.stdout, stderr: out.stderr };
      }
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { additionalContext: 'witness-ran' } });
      // JavaScript writes always reach stderr; a child's inherited stdout does too, except when
      // stderr is a socket and cannot be reopened (then it goes to /dev/null, never to stdout).
      expect(result.stderr).toContain('JUNK-FD1');
      if (_kind !== 'a pipe (stderr a socket)') expect(result.stderr).toContain('JUNK-CHILD');
    });
  });

  describe('files left behind and the event log (§4, §8, §9)', () => {
    it('a torn last line in the event log does not swallow the next record', async () => {
      mkdirSync(path.join(project, '.hookwise', 'logs'), { recursive: true });
      writeFileSync(
        path.join(project, '.hookwise', 'logs', 'events.jsonl'),
        '{"time":"2026-01-01T00:00:00.000Z","type":"whole"}\n{"time":"2026-01-01T00:00:00.000Z","ty',
      );
      expect((await call('PostToolUse', postToolUse(), { env: { HW_ATTACK: 'throw' } })).code).toBe(0);
      const lines = readFileSync(path.join(project, '.hookwise', 'logs', 'events.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      expect(lines).toHaveLength(3);
      expect(JSON.parse(lines[2]!)).toMatchObject({ type: 'hook:error', hookName: 'attack' });
    });

    it('a session id with control characters is refused with them escaped', async () => {
      const result = await call('PostToolUse', postToolUse({ session_id: 'evil\u202Eid\u0007' }));
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/[\u202E\u0007]/);
      expect(result.stderr).toContain('\\u{202E}');
      expect(stderrLines(result)).toHaveLength(1);
    });

    it('ENOSPC: a failed bundle write leaves no temp file, is not retried on every call, and recovers once space is freed; state errors name the cause', async () => {
      const hookwiseDir = path.join(project, '.hookwise');
      const saved = path.join(root, 'saved-hookwise');
      rmSync(saved, { recursive: true, force: true });
      execFileSync('mv', [hookwiseDir, saved]);
      mkdirSync(hookwiseDir);
      if (!mountTmpfs(hookwiseDir, 'size=2m')) {
        rmSync(hookwiseDir, { recursive: true, force: true });
        execFileSync('mv', [saved, hookwiseDir]);
        console.warn(`ENOSPC reproduction not run: ${mountRefused}`);
        expect(mountRefused, 'this machine refuses to mount a tmpfs; the ENOSPC reproduction needs root').toBeUndefined();
        return;
      }
      try {
        // Fill the disk, leaving too little for the ~0.5 MB bundle.
        spawnSync('sh', ['-c', `dd if=/dev/zero of="${hookwiseDir}/filler" bs=4k 2>/dev/null; true`]);
        const first = await call('PostToolUse', postToolUse());
        expect(first.code).toBe(0);
        expect(first.stderr).not.toMatch(/ENOENT|mkdir/);
        const leftovers = () => readdirSync(path.join(hookwiseDir, 'cache', 'claude-code')).filter((name) => name.endsWith('.tmp'));
        expect(leftovers()).toEqual([]);
        const marker = path.join(hookwiseDir, 'cache', 'claude-code', 'write-failed');
        expect(existsSync(marker)).toBe(true);
        const markedAt = statSync(marker).mtimeMs;
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect((await call('PostToolUse', postToolUse())).code).toBe(0);
        expect(statSync(marker).mtimeMs, 'the second call tried to build again').toBe(markedAt);
        // Free the space; once the retry pause is over the next call builds and saves the bundle.
        rmSync(path.join(hookwiseDir, 'filler'));
        const past = new Date(Date.now() - 120_000);
        utimesSync(marker, past, past);
        expect((await call('PostToolUse', postToolUse())).code).toBe(0);
        expect(readdirSync(path.join(hookwiseDir, 'cache', 'claude-code')).filter((name) => name.endsWith('.cjs'))).toHaveLength(1);
        expect(leftovers()).toEqual([]);
      } finally {
        unmount(hookwiseDir);
        rmSync(hookwiseDir, { recursive: true, force: true });
        execFileSync('mv', [saved, hookwiseDir]);
      }
    });

    it('a read-only .hookwise: one line per problem naming the real cause, never "ENOENT … mkdir"', async () => {
      const hookwiseDir = path.join(project, '.hookwise');
      const saved = path.join(root, 'saved-hookwise-ro');
      rmSync(saved, { recursive: true, force: true });
      execFileSync('mv', [hookwiseDir, saved]);
      mkdirSync(hookwiseDir);
      if (!mountTmpfs(hookwiseDir, 'ro,size=64k')) {
        rmSync(hookwiseDir, { recursive: true, force: true });
        execFileSync('mv', [saved, hookwiseDir]);
        console.warn(`read-only reproduction not run: ${mountRefused}`);
        expect(mountRefused, 'this machine refuses to mount a tmpfs; the read-only reproduction needs root').toBeUndefined();
        return;
      }
      try {
        const result = await call('PostToolUse', postToolUse());
        expect(result.code).toBe(0);
        expect(result.stderr).not.toMatch(/ENOENT|mkdir/);
        for (const line of stderrLines(result)) expect(line).toMatch(/read-only file system \(EROFS\)/);
      } finally {
        unmount(hookwiseDir);
        rmSync(hookwiseDir, { recursive: true, force: true });
        execFileSync('mv', [saved, hookwiseDir]);
      }
    });
  });

  describe('linked packages (§11; before: "@esbuild/linux-x64 could not be found", every call unbundled)', () => {
    it('a project with the packages linked in (workspace links) builds its run bundle, and doctor reports the manifest', () => {
      const scratch = createScratchProject('hookwise-attack-linked-');
      try {
        const env = { ...cleanEnv(), CLAUDE_PROJECT_DIR: scratch.dir, HOME: scratch.home } as NodeJS.ProcessEnv;
        const linkedBin = path.join(scratch.dir, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
        writeFileSync(
          path.join(scratch.dir, 'hookwise.config.json'),
          JSON.stringify({ plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': {} } }),
        );
        const run = spawnSync(process.execPath, [linkedBin, 'run', 'PostToolUse'], {
          cwd: scratch.dir,
          env,
          encoding: 'utf8',
          input: JSON.stringify({
            session_id: 's1',
            cwd: scratch.dir,
            hook_event_name: 'PostToolUse',
            tool_name: 'Bash',
            tool_input: {},
            tool_response: {},
          }),
        });
        expect(run.status, run.stderr).toBe(0);
        const manifest = JSON.parse(
          readFileSync(path.join(scratch.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'), 'utf8'),
        ) as {
          bundle?: string;
          failed?: string;
        };
        expect(manifest.failed).toBeUndefined();
        expect(manifest.bundle).toMatch(/^run-[0-9a-f]{16}\.cjs$/);
        expect(lstatSync(path.join(scratch.dir, '.hookwise', 'cache', 'claude-code', manifest.bundle!)).isFile()).toBe(true);
        // doctor says what the manifest says: break the manifest and it must not claim the bundle is used.
        writeFileSync(
          path.join(scratch.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'),
          JSON.stringify({ ...manifest, bundle: undefined, failed: 'bundling failed: planted' }),
        );
        const doctor = spawnSync(process.execPath, [linkedBin, 'doctor'], { cwd: scratch.dir, env, encoding: 'utf8' });
        expect(doctor.stdout).toContain(
          '! hook calls use the unbundled path (about 4× slower to start): the last build failed: bundling failed: planted',
        );
      } finally {
        scratch.remove();
      }
    });
  });

  describe('cold start (what a call loads)', () => {
    it("a bundled PostToolUse call that reads a transcript loads none of node:fs/promises, node:perf_hooks, node:module, node:crypto, node:os (~0.3–1.5 ms of start-up each), nor starts libuv's thread pool", async () => {
      const transcript = path.join(project, 'transcript.jsonl');
      writeFileSync(
        transcript,
        `${JSON.stringify({ type: 'assistant', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, output_tokens: 5 } } })}\n`,
      );
      const preload = path.join(root, 'module-list.cjs');
      const listed = path.join(root, 'modules.txt');
      // Written at exit: the built-in modules the whole call loaded, then the process's threads at start and at exit
      // (the thread pool's threads stay once started, all at once; a V8 helper or a deadline watchdog not yet joined can
      // show as one more, so the pool is sized 8 here and only a rise of 8 or more counts as the pool).
      writeFileSync(
        preload,
        `const threads = () => require('node:fs').readdirSync('/proc/self/task').length; const atStart = threads();\nprocess.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listed)}, [...process.moduleLoadList, \`threads \${atStart} \${threads()}\`].join('\\n')));\n`,
      );
      rmSync(listed, { force: true });
      const result = await call('PostToolUse', postToolUse({ transcript_path: transcript }), {
        env: { NODE_OPTIONS: `--require ${preload}`, UV_THREADPOOL_SIZE: '8' },
      });
      expect(result.code).toBe(0);
      expect(toolCalls()).toBe(1); // the plugins ran (hook-suggest read the transcript and counted the call)
      const modules = readFileSync(listed, 'utf8').split('\n');
      expect(modules).toContain('NativeModule fs'); // the list is real
      // node:os: the state lock reads the host name from /proc on Linux (elsewhere it loads node:os).
      const unwanted =
        process.platform === 'linux'
          ? /fs\/promises|perf_hooks|NativeModule (module|crypto|os)$/
          : /fs\/promises|perf_hooks|NativeModule (module|crypto)$/;
      expect(modules.filter((name) => unwanted.test(name))).toEqual([]);
      const [atStart, atExit] = modules.at(-1)!.split(' ').slice(1).map(Number);
      expect(atStart).toBeGreaterThan(0);
      expect(atExit! - atStart!).toBeLessThan(8);
    });
  });
}
