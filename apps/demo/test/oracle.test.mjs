import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { futureEdits, oracleConfigSource } from '../bench/oracle.mjs';

// The bench's oracle (policies.mjs --oracle) bounds what a keep rule can cost: it must lose no
// edit, and it must clear. Replayed by the built report on the repo's real session.
const demoDir = fileURLToPath(new URL('..', import.meta.url));
const SESSION = fileURLToPath(
  new URL('../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
);
const require = createRequire(import.meta.url);
const cliDir = path.dirname(require.resolve('@hookwise/cli/package.json'));
const { reportCommand } = await import(pathToFileURL(path.join(cliDir, 'dist', 'report', 'command.js')).href);
const scratch = mkdtempSync(path.join(tmpdir(), 'hookwise-oracle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function reportWith(name, source) {
  const configFile = path.join(scratch, `${name}.config.mjs`);
  writeFileSync(configFile, source);
  let json = '';
  const code = await reportCommand({
    transcript: SESSION,
    json: true,
    projectDir: demoDir,
    configFile,
    stdout: (text) => (json += text),
    stderr: () => {},
  });
  expect(code).toBe(0);
  return JSON.parse(json).cost;
}

describe('the oracle keep rule', () => {
  it('reads the edits the session will make, in order', async () => {
    const { order, edits } = await futureEdits(SESSION);
    expect(edits.length).toBeGreaterThan(60);
    expect(edits.every((edit, index) => index === 0 || edit.at >= edits[index - 1].at)).toBe(true);
    expect(Math.max(...edits.map((edit) => edit.at))).toBeLessThan(order.size);
  });

  it.each(['at-once', 'best-break'])('%s: loses none of the sourced edits and costs less than not pruning', async (schedule) => {
    const cost = await reportWith(schedule, oracleConfigSource(SESSION, { schedule }));
    expect(cost.edits.sourced).toBeGreaterThan(50);
    expect(cost.edits.lost).toBe(0);
    expect(cost.ratio['5m']).toBeLessThan(0.95);
  });

  it('keeping nothing but the newest results loses edits on the same session (what the oracle keeps matters)', async () => {
    const source = `export default { on: { 'llm:before': (payload) => { const results = payload.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool-result')); const keep = new Set(results.slice(-3)); return { value: payload.messages.map((m) => ({ ...m, parts: m.parts.map((p) => (p.type === 'tool-result' && !keep.has(p) ? { ...p, output: '[cleared]' } : p)) })) }; } } };\n`;
    const cost = await reportWith('newest-3', source);
    expect(cost.edits.lost).toBeGreaterThan(10);
  });
});
