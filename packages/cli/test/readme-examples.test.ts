import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createScratchProject, type ScratchProject } from './harness.js';

/**
 * Every example in a package README that is a whole module importing hookwise runs here as a
 * user would run it: saved as a file in a project with the packages installed (linked from the
 * workspace, built), TypeScript stripped of its types, then `node example.mjs`. Blocks that are
 * not whole programs are listed in SKIPPED with the reason, so a new example runs by default.
 */
const packagesDir = path.resolve(import.meta.dirname, '..', '..');
const PACKAGES = [
  'core',
  'hook-prune',
  'hook-precompact',
  'hook-suggest',
  'cli',
  'adapter-claude-code',
  'adapter-opencode',
  'adapter-vscode',
];

// `<package> <first line of the block>` → why it does not run on its own.
const SKIPPED: Record<string, string> = {
  "adapter-claude-code import { query } from '@anthropic-ai/claude-agent-sdk';": 'needs a model behind the Agent SDK (run in test/e2e-sdk)',
  'adapter-vscode // src/extension.ts': 'runs inside VS Code (tested in examples/vscode-extension on a real VS Code)',
  "cli import type { HostSetup } from '@hookwise/cli';":
    'a host adapter module, loaded by the CLI (tested through adapter-opencode in cli.test.ts)',
  'cli // dist/hook-process/bundle-runtime.js: what every bundle includes (the manifest names this file)':
    "two modules of a command-hook adapter (run through adapter-claude-code's bin in its test suites)",
};

// What an example expects to find in the project, as its prose says.
const workspaceRoot = path.resolve(packagesDir, '..');
const PROJECT_FILES: Record<string, string> = {
  // The AgileFlow command the precompact README reads (fixtures/agileflow-commands, with its LICENSE).
  '.claude/commands/babysit.md': readFileSync(path.join(workspaceRoot, 'fixtures', 'agileflow-commands', 'babysit.md'), 'utf8'),
};

interface Example {
  folder: string;
  language: string;
  code: string;
  key: string;
}

function examplesOf(folder: string): Example[] {
  const readme = readFileSync(path.join(packagesDir, folder, 'README.md'), 'utf8');
  const examples: Example[] = [];
  for (const match of readme.matchAll(/^```(ts|js|mjs|typescript)\n([\s\S]*?)^```/gm)) {
    const code = match[2]!;
    // Whole modules only: the code imports hookwise at its top level.
    if (!/^import [^\n]* from '@hookwise\//m.test(code)) continue;
    examples.push({ folder, language: match[1]!, code, key: `${folder} ${code.split('\n')[0]}` });
  }
  return examples;
}

let project: ScratchProject;
const all = PACKAGES.flatMap(examplesOf);

beforeAll(() => {
  assertBuilt(PACKAGES);
  project = createScratchProject(PACKAGES);
  for (const [file, text] of Object.entries(PROJECT_FILES)) {
    mkdirSync(path.dirname(path.join(project.dir, file)), { recursive: true });
    writeFileSync(path.join(project.dir, file), text);
  }
  // A plugin author who writes an options schema with zod has it installed.
  symlinkSync(realpathSync(path.join(packagesDir, 'core', 'node_modules', 'zod')), path.join(project.dir, 'node_modules', 'zod'), 'dir');
});
afterAll(() => project?.remove());

describe('README examples', () => {
  it('finds examples in the READMEs, and every skipped one still exists', () => {
    expect(all.length).toBeGreaterThan(10);
    const keys = new Set(all.map((example) => example.key));
    expect(
      Object.keys(SKIPPED).filter((key) => !keys.has(key)),
      [...keys].join('\n'),
    ).toEqual([]);
  });

  it.each(all.filter((example) => !(example.key in SKIPPED)).map((example) => [example.key, example] as const))('%s', (_key, example) => {
    const source =
      example.language === 'ts' || example.language === 'typescript'
        ? ts.transpileModule(example.code, {
            compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
          }).outputText
        : example.code;
    const file = path.join(project.dir, `example-${readdirSync(project.dir).length}.mjs`);
    writeFileSync(file, source);
    const result = spawnSync(process.execPath, [file], {
      cwd: project.dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(result.status, `${result.stderr}\n--- example ---\n${example.code}`).toBe(0);
  });
});
