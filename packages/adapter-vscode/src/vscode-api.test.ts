import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, '..');
const fakeFile = path.join(here, '__fixtures__', 'fake-vscode.ts');
const driftedFile = path.join(here, '__fixtures__', 'drifted-fake.virtual.ts');

/** A fake whose status bar item lacks `show()` and whose output channel takes a number: the API drifted. */
const driftedSource = `
import type * as vscode from 'vscode';
import type { VscodeApi } from '../vscode-api.js';
declare const base: VscodeApi;
const item = { id: 'x', alignment: 2 as vscode.StatusBarAlignment, priority: 1, name: undefined, text: '', tooltip: undefined, color: undefined,
  backgroundColor: undefined, command: undefined, accessibilityInformation: undefined, hide() {}, dispose() {} };
export const drifted: VscodeApi = {
  ...base,
  window: { ...base.window, createStatusBarItem: () => item, createOutputChannel: (name: number) => base.window.createOutputChannel(String(name), { log: true }) },
};
`;

function compile(files: string[], virtual: Record<string, string> = {}) {
  const configPath = path.join(packageDir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, packageDir);
  const options = { ...parsed.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => virtual[path.resolve(file)] ?? readFile(file);
  host.fileExists = (file) => path.resolve(file) in virtual || fileExists(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, languageVersion, onError) => {
    const text = virtual[path.resolve(file)];
    return text !== undefined ? ts.createSourceFile(file, text, languageVersion) : getSourceFile(file, languageVersion, onError);
  };
  const program = ts.createProgram({ rootNames: files, options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
    file: diagnostic.file ? path.resolve(diagnostic.file.fileName) : undefined,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

describe('the narrow vscode interface', () => {
  it('is met by the real module, and the test fake matches the real signatures, while a drifted fake fails to compile', () => {
    const diagnostics = compile([fakeFile, driftedFile], { [driftedFile]: driftedSource });
    // vscode-api.ts asserts at compile time that `typeof import('vscode')` is a VscodeApi.
    expect(diagnostics.filter((diagnostic) => diagnostic.file !== driftedFile)).toEqual([]);
    const drifted = diagnostics.filter((diagnostic) => diagnostic.file === driftedFile).map((diagnostic) => diagnostic.message);
    expect(drifted.join('\n')).toMatch(/Property 'show' is missing/);
    expect(drifted.join('\n')).toMatch(/'string' is not assignable to type 'number'/);
  });
});
