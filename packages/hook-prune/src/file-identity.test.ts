import { describe, expect, it } from 'vitest';
import { fileIdentity, fileOfCall, sameFile, shellViewedFile } from './file-context.js';

describe('file identity: one name per file, whatever way the session wrote it', () => {
  it.each([
    ['separators', 'repo\\src\\x.js', 'repo/src/x.js'],
    ['drive letters and case of a Windows path', 'D:\\Repo\\Src\\X.js', 'd:/repo/src/x.js'],
    ['./ in front', './src/x.ts', 'src/x.ts'],
    ['.. inside', 'src/lib/../x.ts', 'src/x.ts'],
    ['a trailing slash', 'src/', 'src'],
    ['a POSIX path keeps its case', '/repo/Src/X.ts', '/repo/Src/X.ts'],
  ])('%s', (_form, written, identity) => {
    expect(fileIdentity(written)).toBe(identity);
  });

  it('meets relative and absolute names of one file, and keeps different files apart', () => {
    expect(sameFile(fileIdentity('D:\\repo\\src\\x.js'), fileIdentity('repo\\src\\x.js'))).toBe(true);
    expect(sameFile(fileIdentity('D:\\repo\\src\\X.js'), fileIdentity('src/X.js'))).toBe(true);
    expect(sameFile('/home/me/repo/src/x.ts', 'src/x.ts')).toBe(true);
    expect(sameFile('/home/me/repo/src/x.ts', 'x.ts')).toBe(true);
    expect(sameFile('/home/me/repo/src/x.ts', 'rc/x.ts')).toBe(false);
    expect(sameFile('/a/src/x.ts', '/b/src/x.ts')).toBe(false);
    expect(sameFile('/repo/src/x.ts', '../src/x.ts')).toBe(false);
  });
});

describe('shell views are reads', () => {
  it.each([
    ["sed -n '120,155p' src/app.ts", 'src/app.ts'],
    ['cat -n src/app.ts', 'src/app.ts'],
    ['head -50 src/app.ts', 'src/app.ts'],
    ['tail -n 20 logs/out.txt | grep error', 'logs/out.txt'],
    ['nl -ba src/app.ts', 'src/app.ts'],
    ['grep -n "export const" src/app.ts', 'src/app.ts'],
    ["rg -n 'TODO' src/app.ts", 'src/app.ts'],
    ["awk 'NR>=10 && NR<=20' src/app.ts", 'src/app.ts'],
    ['Get-Content src\\app.ts', 'src\\app.ts'],
    ['gc -TotalCount 40 src\\app.ts', 'src\\app.ts'],
    ['cd packages/core && sed -n 1,80p src/index.ts', 'packages/core/src/index.ts'],
  ])('%s shows %s', (command, file) => {
    expect(shellViewedFile(command)).toBe(file);
  });

  it.each(['ls -la src', 'npm test', 'grep -rn foo src/*.ts', 'git diff', 'cat > new.txt'])('%s shows no one file', (command) => {
    expect(shellViewedFile(command)).toBeUndefined();
  });

  it("counts for Claude Code's Bash and other hosts' shell tools, with the same identity as a Read", () => {
    expect(fileOfCall('Bash', { command: "sed -n '1,40p' D:\\repo\\src\\x.js" })).toBe('d:/repo/src/x.js');
    expect(fileOfCall('bash', { command: 'cat ./src/x.ts' })).toBe('src/x.ts');
    expect(fileOfCall('run_shell_command', { command: 'head src/x.ts' })).toBe('src/x.ts');
    expect(fileOfCall('shell', { command: ['bash', '-lc', 'cat src/x.ts'] })).toBe('src/x.ts');
    expect(fileOfCall('Read', { file_path: 'D:\\repo\\src\\x.js' })).toBe('d:/repo/src/x.js');
    expect(fileOfCall('Bash', { command: 'npm test' })).toBeUndefined();
  });
});
