import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/**
 * Child processes cannot load TypeScript on Node 20 and vitest's transform only exists inside
 * the test runner, so for multi-process tests we transpile the real state modules (and what they
 * import) to plain ESM in a temp folder. Children then exercise exactly the code under test.
 * TypeScript (root devDependency) is used rather than esbuild because esbuild is not resolvable
 * from this package.
 */
const sourceRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const requireFromPackage = createRequire(import.meta.url);
export const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'child.mjs');

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;

export interface ChildBuild {
  /** Folder holding the transpiled tree; pass it to child.mjs. */
  directory: string;
  cleanup(): Promise<void>;
}

export async function buildStateModulesForChildren(): Promise<ChildBuild> {
  const directory = await mkdtemp(path.join(tmpdir(), 'hookwise-state-build-'));
  await writeFile(path.join(directory, 'package.json'), '{"type":"module"}\n');
  const pending = ['state/file-state-store.ts', 'state/event-log.ts'];
  const done = new Set<string>();
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    if (done.has(relative)) continue;
    done.add(relative);
    const source = await readFile(path.join(sourceRoot, relative), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: relative,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const rewritten = outputText.replace(SPECIFIER, (whole, prefix: string, quote: string, specifier: string) => {
      if (specifier.startsWith('.')) {
        pending.push(path.posix.join(path.posix.dirname(relative), specifier.replace(/\.js$/, '.ts')));
        return whole;
      }
      if (specifier.startsWith('node:')) return whole;
      // Bare package: point at the copy this package resolves, since the temp folder has no node_modules.
      return `${prefix}${quote}${pathToFileURL(requireFromPackage.resolve(specifier)).href}${quote}`;
    });
    const target = path.join(directory, relative.replace(/\.ts$/, '.js'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, rewritten);
  }
  return { directory, cleanup: () => rm(directory, { recursive: true, force: true }) };
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs child.mjs with one JSON argument and collects its output. */
export function runChild(build: ChildBuild, task: Record<string, unknown>): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, build.directory, JSON.stringify(task)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
