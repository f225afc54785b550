import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesDir } from './harness.js';

/**
 * A README that tells the user to run `npx hookwise …` must have them install the package that
 * brings the `hookwise` command (the CLI, or the Claude Code adapter that depends on it) in the
 * same block: otherwise npx looks up an unrelated `hookwise` package and fails with a 404.
 */
const readmes = [
  path.join(packagesDir, '..', 'README.md'),
  ...readdirSync(packagesDir).map((folder) => path.join(packagesDir, folder, 'README.md')),
];

describe('README install lines', () => {
  it.each(readmes.map((file) => [path.relative(path.join(packagesDir, '..'), file), file]))(
    '%s installs the hookwise command wherever it runs it',
    (_name, file) => {
      const readme = readFileSync(file, 'utf8');
      if (!/npx hookwise /.test(readme)) return;
      const installs = readme.split('\n').filter((line) => /^(npm install|npm i |pnpm add)\b.*@hookwise\//.test(line));
      for (const install of installs) expect(install).toMatch(/@hookwise\/(cli|adapter-claude-code)\b/);
    },
  );
});
