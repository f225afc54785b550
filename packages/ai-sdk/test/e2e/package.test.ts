import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isPrunedOutput } from '@hookwise/hook-prune';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProject, specifiersOf, startRegistry, type LocalRegistry } from '../../../../test-support/registry.js';
import { run } from '../support/run.js';
import { fileText } from './scenario.mjs';
import { startStandInModel, systemTexts, toolResults, type StandInModel } from './stand-in-model.mjs';

/**
 * What a user gets from npm: @hookwise/ai-sdk and the plugins published to a local registry
 * (Verdaccio), installed by name with npm and with pnpm into a fresh project beside the real
 * `ai` and `@ai-sdk/openai-compatible`, then `npx hookwise init --host ai-sdk` and the README's
 * examples run as written, against the stand-in model.
 */

const packageDir = path.resolve(import.meta.dirname, '..', '..');
const PUBLISHED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'cli', 'ai-sdk'];
const THIRD_PARTY = ['ai@6.0.325', '@ai-sdk/openai-compatible@2.0.92'];

/** The README's code blocks: the config file, and the modules that import @hookwise/ai-sdk. */
function readmeBlocks(): { config: string; examples: string[] } {
  const readme = readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```(js|ts)\n([\s\S]*?)^```/gm)].map((match) => ({ language: match[1]!, code: match[2]! }));
  const config = blocks.find((block) => block.language === 'js' && /^export default/m.test(block.code));
  const examples = blocks.filter((block) => /^import [^\n]* from '@hookwise\/ai-sdk';$/m.test(block.code)).map((block) => block.code);
  if (!config || examples.length === 0) throw new Error('the README lost its config block or its example');
  return { config: config.code, examples };
}

/** TypeScript to plain JavaScript, as a user's build would (types only: the examples use no TS-only syntax). */
async function stripTypes(code: string): Promise<string> {
  const ts = await import('typescript');
  return ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
}

let registry: LocalRegistry | undefined;
let standIn: StandInModel;
const roots: string[] = [];

beforeAll(async () => {
  for (const folder of PUBLISHED)
    if (!existsSync(path.join(packageDir, '..', folder, 'dist'))) throw new Error(`packages/${folder} is not built: run the build first`);
  standIn = await startStandInModel();
  registry = await startRegistry(PUBLISHED);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  await standIn?.close();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe.each(['npm', 'pnpm'] as const)('installed with %s', (kind) => {
  let project: string;

  beforeAll(() => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), `hookwise-ai-sdk-${kind}-`)));
    roots.push(root);
    project = path.join(root, 'project');
    installProject(kind, registry!, project, [...specifiersOf(['ai-sdk', 'hook-prune', 'cli']), ...THIRD_PARTY]);
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ ...manifest, type: 'module' }, null, 2)}\n`);
  }, 600_000);

  const inProject = (command: string, args: string[], env: Record<string, string> = {}) => run(command, args, { cwd: project, env });

  it('installs by name, with core from the registry, not the workspace', () => {
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules', '@hookwise', 'ai-sdk', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    expect(installed.dependencies['@hookwise/core']).not.toMatch(/^workspace:/);
    expect(installed.peerDependencies['ai']).toBe('>=5 <8');
    expect(realpathSync(path.join(project, 'node_modules', '@hookwise', 'ai-sdk'))).toContain(project);
  });

  it('npx hookwise init --host ai-sdk writes the config and prints what the app adds', async () => {
    const result = await inProject('npx', ['--no-install', 'hookwise', 'init', '--host', 'ai-sdk', '--plugins', 'prune']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('wrapLanguageModel({ model: yourModel, middleware: hookwise })');
    expect(readdirConfig(project)).toBeDefined();
    const doctor = await inProject('npx', ['--no-install', 'hookwise', 'doctor', '--host', 'ai-sdk']);
    expect(doctor.stdout + doctor.stderr).toContain('ai 6.0.325 is installed');
  });

  it("runs the README example as written: hook-prune's placeholders on the wire, the files read whole by the app", async () => {
    const { config, examples } = readmeBlocks();
    // The README's config, with thresholds at zero so this short session prunes.
    writeFileSync(
      path.join(project, 'hookwise.config.mjs'),
      config.replace('prune()', "prune({ policy: 'window', keepRecent: 1, protectTokens: 0, minimumTokens: 0 })"),
    );
    mkdirSync(path.join(project, 'src'), { recursive: true });
    for (let file = 1; file <= 4; file++) writeFileSync(path.join(project, 'src', `file-${file}.ts`), fileText(`src/file-${file}.ts`));
    for (const [index, example] of examples.entries()) {
      const file = path.join(project, `example-${index}.mjs`);
      writeFileSync(file, await stripTypes(example));
      standIn.reset();
      const result = await inProject(process.execPath, [file], { MODEL_BASE_URL: standIn.url });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('Read 4 files.');
      const last = standIn.requests.at(-1)!.body;
      expect(systemTexts('openai', last)[0]).toBe('You are a coding agent.');
      const sent = toolResults('openai', last);
      expect(sent).toHaveLength(4);
      expect(sent.filter((item) => isPrunedOutput(item.text)).length).toBeGreaterThan(0);
      expect(sent.at(-1)!.text).toBe(fileText('src/file-4.ts'));
    }
    const events = readFileSync(path.join(project, '.hookwise', 'logs', 'events.jsonl'), 'utf8');
    expect(events).toContain('"type":"prune:applied"');
  });
});

function readdirConfig(project: string): string | undefined {
  return ['hookwise.config.mjs', 'hookwise.config.js', 'hookwise.config.json', 'hookwise.config.ts'].find((name) =>
    existsSync(path.join(project, name)),
  );
}
