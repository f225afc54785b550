import { describe, expect, it } from 'vitest';
import { filesOfCall } from './file-context.js';
import { FileIdentity } from './file-identity.js';

describe('FileIdentity: one key per file, whatever a tool called it', () => {
  it('joins backslash and slash separators, and repeated ones', () => {
    const identity = new FileIdentity();
    expect(identity.key('D:\\repo\\src\\x.js')).toBe(identity.key('D:/repo//src/x.js'));
  });

  it('lower-cases the drive letter and the path of a Windows path', () => {
    const identity = new FileIdentity();
    expect(identity.key('D:\\Repo\\Src\\X.js')).toBe('d:/repo/src/x.js');
  });

  it('drops ./ in front and a trailing slash', () => {
    const identity = new FileIdentity();
    expect(identity.key('./src/x.ts')).toBe('src/x.ts');
    expect(identity.key('src/lib/../x.ts')).toBe('src/x.ts');
    expect(identity.key('src/')).toBe('src');
  });

  it('keeps the case of a POSIX path', () => {
    expect(new FileIdentity().key('/repo/Src/X.ts')).toBe('/repo/Src/X.ts');
  });

  it('takes Git Bash /d/… for drive D once the session is known to run on Windows', () => {
    const identity = new FileIdentity('D:\\repo');
    expect(identity.key('/d/repo/src/x.js')).toBe('d:/repo/src/x.js');
    expect(new FileIdentity('/home/me').key('/d/repo/x.js')).toBe('/d/repo/x.js');
  });

  it('resolves a relative path against the working directory the host gives', () => {
    expect(new FileIdentity('/repo').key('src/x.ts')).toBe('/repo/src/x.ts');
    const windows = new FileIdentity('D:\\repo');
    expect(windows.key('src\\x.js')).toBe('d:/repo/src/x.js');
    expect(windows.key('repo\\src\\x.js', '..')).toBe('d:/repo/src/x.js');
  });

  it('resolves ./ and .. in absolute and relative paths', () => {
    const identity = new FileIdentity('/repo/app');
    expect(identity.key('/repo/./src/../src/x.ts')).toBe('/repo/src/x.ts');
    expect(identity.key('./src/x.ts')).toBe('/repo/app/src/x.ts');
    expect(identity.key('../lib/y.ts')).toBe('/repo/lib/y.ts');
    expect(identity.key('/../etc/hosts')).toBe('/etc/hosts');
  });

  it('resolves against the directory a shell command moved to', () => {
    const identity = new FileIdentity('/work');
    expect(identity.key('src/x.ts', 'repo')).toBe('/work/repo/src/x.ts');
    expect(identity.key('src/x.ts', '/elsewhere')).toBe('/elsewhere/src/x.ts');
  });

  it('learns the working directory from the first relative path that ends an absolute one', () => {
    const identity = new FileIdentity();
    expect(identity.key('/home/me/repo/src/x.ts')).toBe('/home/me/repo/src/x.ts');
    expect(identity.key('src/x.ts')).toBe('/home/me/repo/src/x.ts');
    expect(identity.directory).toBe('/home/me/repo');
    expect(identity.key('lib/y.ts')).toBe('/home/me/repo/lib/y.ts');
  });

  it('learns nothing from a relative path two absolute ones end with', () => {
    const identity = new FileIdentity();
    identity.key('/a/src/x.ts');
    identity.key('/b/src/x.ts');
    expect(identity.key('src/x.ts')).toBe('src/x.ts');
    expect(identity.directory).toBeUndefined();
  });

  it("keys a Windows session's absolute, relative and drive-less names of one file alike", () => {
    const identity = new FileIdentity();
    const absolute = identity.key('D:\\Projects\\app\\src\\x.js');
    expect(identity.key('src/x.js')).toBe(absolute);
    expect(identity.key('app\\src\\x.js', '..')).toBe(absolute);
  });
});

describe('one key for every keep rule: reads, writes and shell views alike', () => {
  it("keys Claude Code's Bash and other hosts' shell tools as a Read of the same file", () => {
    const identity = new FileIdentity('D:\\repo');
    expect(filesOfCall('Bash', { command: "sed -n '1,40p' D:\\repo\\src\\x.js" }, identity)).toEqual(['d:/repo/src/x.js']);
    expect(filesOfCall('Read', { file_path: 'D:\\Repo\\src\\X.js' }, identity)).toEqual(['d:/repo/src/x.js']);
    expect(filesOfCall('PowerShell', { command: 'Get-Content src\\x.js' }, identity)).toEqual(['d:/repo/src/x.js']);
    const posix = new FileIdentity('/repo');
    expect(filesOfCall('bash', { command: 'cat ./src/x.ts' }, posix)).toEqual(['/repo/src/x.ts']);
    expect(filesOfCall('run_shell_command', { command: 'head src/x.ts' }, posix)).toEqual(['/repo/src/x.ts']);
    expect(filesOfCall('shell', { command: ['bash', '-lc', 'cat src/x.ts'] }, posix)).toEqual(['/repo/src/x.ts']);
    expect(filesOfCall('Bash', { command: 'npm test' }, posix)).toBeNull();
  });

  it('keeps different files apart', () => {
    const identity = new FileIdentity('/home/me/repo');
    expect(identity.key('src/x.ts')).not.toBe(identity.key('/home/me/repo/rc/x.ts'));
    expect(identity.key('/a/src/x.ts')).not.toBe(identity.key('/b/src/x.ts'));
    expect(identity.key('../src/x.ts')).not.toBe(identity.key('/home/me/repo/src/x.ts'));
  });
});
