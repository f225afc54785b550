import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProject, specifiersOf, startRegistry, type LocalRegistry } from '../../../test-support/registry.js';
import { assertBuilt, callHook, cleanEnv, createScratchProject, LINKED_PACKAGES, readJsonl, type ScratchProject } from './harness.js';

/**
 * The first burst of a fresh install: Claude Code runs the PostToolUse hooks of parallel tool
 * calls at the same time, so a project's first calls arrive together, before any run bundle
 * exists. Installed three ways — from a registry with npm, with pnpm (links into
 * node_modules/.pnpm), and with the workspace's packages linked in — each burst must exit 0
 * with nothing on stderr, count every call, suggest exactly once at the threshold, and build
 * the bundle once; the call after it runs from that bundle.
 */
const PACKAGES = ['core', 'hook-suggest', 'adapter-claude-code'] as const;
const THRESHOLD = 50;

let registry: LocalRegistry | undefined;
let root: string;
const scratches: ScratchProject[] = [];

beforeAll(async () => {
  assertBuilt();
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-burst-')));
  registry = await startRegistry(LINKED_PACKAGES);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  scratches.forEach((scratch) => scratch.remove());
  if (root) rmSync(root, { recursive: true, force: true });
});

// 300 node starts on a 2-core machine take longer than a call's default 30 s deadline; a call
// cut by it would be the machine's speed, not what is tested. Claude Code kills at 60 s.
const call = (project: string, bin: string, input: string) =>
  callHook(bin, 'PostToolUse', input, {
    cwd: project,
    env: { CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home'), HOOKWISE_CALL_TIMEOUT_MS: '400000' },
    killAfterMs: 420_000,
  });

const kinds = ['npm', 'pnpm', 'linked'] as const;

describe.each(kinds)('the first burst of hook calls, installed %s', (kind) => {
  let project: string;
  let bin: string;

  beforeAll(() => {
    if (kind === 'linked') {
      const scratch = createScratchProject('hookwise-burst-linked-');
      scratches.push(scratch);
      project = scratch.dir;
    } else {
      project = path.join(root, kind);
      installProject(kind, registry!, project, specifiersOf(PACKAGES), { ...cleanEnv(), HOME: process.env.HOME } as NodeJS.ProcessEnv);
    }
    bin = path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
    // One suggestion at the threshold and no reminder within the burst (the next would be due after 1,000 more calls).
    writeFileSync(
      path.join(project, 'hookwise.config.json'),
      JSON.stringify({ plugins: { '@hookwise/hook-suggest': { toolCalls: THRESHOLD, toolCallStep: 1_000 } } }),
    );
  }, 600_000);

  it.each([50, 300])(
    '%i concurrent first calls: all exit 0 silently, all counted, one suggestion, one build',
    async (count) => {
      // A fresh project each time: no .hookwise yet.
      rmSync(path.join(project, '.hookwise'), { recursive: true, force: true });
      const session = `burst-${count}`;
      const input = (index: number) =>
        JSON.stringify({
          session_id: session,
          transcript_path: path.join(project, 'no-transcript.jsonl'),
          cwd: project,
          hook_event_name: 'PostToolUse',
          tool_name: 'Read',
          tool_input: { file_path: `f${index}` },
          tool_response: { file: { content: 'x' } },
          tool_use_id: `toolu_${index}`,
        });
      const results = await Promise.all(Array.from({ length: count }, (_, index) => call(project, bin, input(index))));

      expect(results.filter((result) => result.code !== 0).map((result) => `${result.code}/${result.signal}: ${result.stderr}`)).toEqual(
        [],
      );
      expect([...new Set(results.map((result) => result.stderr).filter((text) => text !== ''))]).toEqual([]);
      const state = JSON.parse(readFileSync(path.join(project, '.hookwise', 'state', session, '@hookwise+hook-suggest.json'), 'utf8')) as {
        policy: { toolCalls: number };
      };
      expect(state.policy.toolCalls).toBe(count);
      const suggestions = results.filter((result) => result.stdout !== '');
      expect(suggestions).toHaveLength(1);
      expect(JSON.parse(suggestions[0]!.stdout)).toHaveProperty('systemMessage', expect.stringContaining(`${THRESHOLD} tool calls`));

      const events = readJsonl(path.join(project, '.hookwise', 'logs', 'events.jsonl'));
      expect(events.filter((event) => event.type === 'cli:bundle-built')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'cli:bundle-failed')).toEqual([]);
      const cache = path.join(project, '.hookwise', 'cache', 'claude-code');
      const manifest = JSON.parse(readFileSync(path.join(cache, 'run-bundle.json'), 'utf8')) as { bundle?: string; failed?: string };
      expect(manifest.failed).toBeUndefined();
      expect(readdirSync(cache).filter((name) => name.endsWith('.cjs'))).toEqual([manifest.bundle]);

      // The next call runs from the bundle: only the bin's bundled path writes its code cache.
      const next = await call(project, bin, input(count));
      expect([next.code, next.stderr]).toEqual([0, '']);
      expect(existsSync(path.join(cache, manifest.bundle!.replace(/\.cjs$/, '.v8cache')))).toBe(true);
    },
    900_000,
  );
});

describe('a build that failed for a race is not a life sentence', () => {
  it('a bundle removed under a fresh manifest is rebuilt by the next call, and doctor reports a lasting failure with its cause', () => {
    const scratch = createScratchProject('hookwise-burst-race-');
    scratches.push(scratch);
    const project = scratch.dir;
    const bin = path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
    writeFileSync(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-suggest': {} } }));
    const input = JSON.stringify({
      session_id: 'race',
      cwd: project,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: {},
      tool_response: {},
    });
    const run = () => call(project, bin, input);
    return (async () => {
      expect((await run()).stderr).toBe('');
      const cache = path.join(project, '.hookwise', 'cache', 'claude-code');
      const manifestFile = path.join(cache, 'run-bundle.json');
      const first = JSON.parse(readFileSync(manifestFile, 'utf8')) as { bundle: string };
      // What a concurrent rebuild (or a cleaner) does between a look at the manifest and the load.
      rmSync(path.join(cache, first.bundle));
      const after = await run();
      expect([after.code, after.stderr]).toEqual([0, '']);
      const second = JSON.parse(readFileSync(manifestFile, 'utf8')) as { bundle?: string; failed?: string };
      expect(second.failed).toBeUndefined();
      expect(existsSync(path.join(cache, second.bundle!))).toBe(true);

      // A lasting cause: a plugin that does not bundle. Recorded, named by doctor, and calls run unbundled.
      mkdirSync(path.join(project, 'node_modules', 'hookwise-plugin-broken'), { recursive: true });
      writeFileSync(
        path.join(project, 'node_modules', 'hookwise-plugin-broken', 'package.json'),
        JSON.stringify({ name: 'hookwise-plugin-broken', type: 'module', exports: './index.js' }),
      );
      writeFileSync(
        path.join(project, 'node_modules', 'hookwise-plugin-broken', 'index.js'),
        "import './missing-file.js';\nexport default () => ({});\n",
      );
      writeFileSync(
        path.join(project, 'hookwise.config.json'),
        JSON.stringify({ plugins: { '@hookwise/hook-suggest': {}, 'hookwise-plugin-broken': {} } }),
      );
      await run();
      const failed = JSON.parse(readFileSync(manifestFile, 'utf8')) as { bundle?: string; failed?: string };
      expect(failed.failed).toMatch(/^bundling failed: .*missing-file/);
      const doctor = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [bin, 'doctor'], {
          cwd: project,
          env: { ...cleanEnv(), CLAUDE_PROJECT_DIR: project, HOME: scratch.home } as NodeJS.ProcessEnv,
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('close', () => resolve(out));
      });
      expect(doctor).toContain('the last build failed: bundling failed:');
    })();
  }, 120_000);
});
