import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hooksFileOf, readCodexTrust, trustRootOf } from './codex-files.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-codex-trust-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("what Codex's config says of a project's trust", () => {
  it('finds the trusted project (or a trusted folder above it) and the hooks carrying a trusted hash', () => {
    const project = path.join(root, 'project');
    const home = path.join(root, 'codex-home');
    mkdirSync(project, { recursive: true });
    mkdirSync(home, { recursive: true });
    expect(readCodexTrust(project, home)).toEqual({ root: project, configFile: undefined, projectTrusted: false, trustedHooks: 0 });
    const hooks = hooksFileOf(project);
    writeFileSync(
      path.join(home, 'config.toml'),
      [
        'model = "x"',
        `[projects."${path.join(root, 'elsewhere')}"]`,
        'trust_level = "trusted"',
        `[projects."${root}"]`,
        'trust_level = "untrusted"',
        `[hooks.state."${hooks}:PostToolUse:0:0"]`,
        'trusted_hash = "abc"',
        `[hooks.state."${hooks}:Stop:0:0"]`,
        'enabled = true',
      ].join('\n'),
    );
    expect(readCodexTrust(project, home)).toMatchObject({ projectTrusted: false, trustedHooks: 1 });
    writeFileSync(path.join(home, 'config.toml'), `[projects."${root}"]\ntrust_level = "trusted"\n`);
    expect(readCodexTrust(project, home).projectTrusted).toBe(true);
  });

  it("takes the enclosing git repository's root as the folder Codex trusts", () => {
    const repo = path.join(root, 'repo');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    mkdirSync(path.join(repo, 'sub', 'dir'), { recursive: true });
    expect(trustRootOf(path.join(repo, 'sub', 'dir'))).toBe(repo);
    expect(trustRootOf(path.join(root, 'project'))).toBe(path.join(root, 'project'));
  });
});
