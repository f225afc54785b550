import { describe, expect, it } from 'vitest';
import { commandOf, isShellTool, shellReads } from './shell-reads.js';

const files = (command: string) =>
  shellReads(command).map((read) => (read.directory === undefined ? read.file : `${read.directory} → ${read.file}`));

describe('shellReads: the files a shell command shows the text of', () => {
  it('cat, head, tail and nl, with their options', () => {
    expect(files('cat src/a.ts')).toEqual(['src/a.ts']);
    expect(files('head -n 50 src/a.ts')).toEqual(['src/a.ts']);
    expect(files('tail -20 src/a.ts b.ts')).toEqual(['src/a.ts', 'b.ts']);
    expect(files('nl -ba src/a.ts')).toEqual(['src/a.ts']);
    expect(files('cat -n src/app.ts')).toEqual(['src/app.ts']);
    expect(files('tail -n 20 logs/out.txt | grep error')).toEqual(['logs/out.txt']);
  });

  it("sed -n '120,155p' file, but not sed -i", () => {
    expect(files("sed -n '120,155p' src/app.py")).toEqual(['src/app.py']);
    expect(files("sed -n -e '1,5p' a.rs")).toEqual(['a.rs']);
    expect(files("sed -i 's/a/b/' src/app.py")).toEqual([]);
  });

  it('grep and rg with a file argument, not their pattern', () => {
    expect(files('grep -n "def run" src/app.py')).toEqual(['src/app.py']);
    expect(files('grep -A 5 -e foo src/app.py')).toEqual(['src/app.py']);
    expect(files('rg -n "fn main" -g "*.rs" src/main.rs')).toEqual(['src/main.rs']);
    expect(files('grep -n "export const" src/app.ts')).toEqual(['src/app.ts']);
    expect(files("rg -n 'TODO' src/app.ts")).toEqual(['src/app.ts']);
    expect(files('ps aux | grep node')).toEqual([]);
  });

  it('no globs, directories or recursive searches: they name no one file', () => {
    expect(files('grep -rn "fn main" src/')).toEqual([]);
    expect(files('grep -n foo src/*.go docs')).toEqual([]);
    expect(files('cat $FILE')).toEqual([]);
  });

  it('awk with its program and field separator', () => {
    expect(files("awk -F: 'NR>=10 && NR<=40' lib/x.go")).toEqual(['lib/x.go']);
    expect(files("awk -F ':' '{print $1}' /etc/passwd")).toEqual(['/etc/passwd']);
  });

  it('PowerShell Get-Content and gc', () => {
    expect(files('Get-Content -Path src\\x.ps1 -TotalCount 40')).toEqual(['src\\x.ps1']);
    expect(files('gc src\\x.cs | Select-Object -First 20')).toEqual(['src\\x.cs']);
    expect(files('gc -TotalCount 40 src\\app.ts')).toEqual(['src\\app.ts']);
  });

  it('chained after cd … &&, with the directory it moved to', () => {
    expect(files('cd /repo/app && sed -n 1,80p src/x.ts')).toEqual(['/repo/app → src/x.ts']);
    expect(files('cd app && cd lib && cat y.ts')).toEqual(['app/lib → y.ts']);
    expect(files('cd packages/core && sed -n 1,80p src/index.ts')).toEqual(['packages/core → src/index.ts']);
  });

  it('skips redirections and the commands that only write', () => {
    expect(files('cat src/a.ts 2>/dev/null > out.txt')).toEqual(['src/a.ts']);
    expect(files('npm test && git status')).toEqual([]);
    expect(files('echo hi > a.txt')).toEqual([]);
    expect(files('cat > new.txt')).toEqual([]);
    expect(files('ls -la src')).toEqual([]);
    expect(files('git diff')).toEqual([]);
    expect(files('grep -rn foo src/*.ts')).toEqual([]);
  });
});

describe('shell tools and their command field', () => {
  it("knows every host's shell tool", () => {
    for (const name of ['Bash', 'bash', 'PowerShell', 'shell', 'run_shell_command', 'exec_command']) expect(isShellTool(name)).toBe(true);
    expect(isShellTool('Read')).toBe(false);
  });

  it("reads command, cmd, and Codex's argv form", () => {
    expect(commandOf({ command: 'cat a' })).toBe('cat a');
    expect(commandOf({ cmd: ['bash', '-lc', 'sed -n 1,4p a.rs'] })).toBe('sed -n 1,4p a.rs');
    expect(commandOf({ path: 'a' })).toBeUndefined();
  });
});
