#!/usr/bin/env node
// `pnpm demo`: hookwise on a real recorded Claude Code session, on a scripted VS Code task, then in a real OpenCode session and a real pi session.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAiSdkSession } from './ai-sdk-session.mjs';
import { runClineSession } from './cline-session.mjs';
import { runGeminiSession } from './gemini-session.mjs';
import { runOpenCodeSession } from './opencode-session.mjs';
import { runPiSession } from './pi-session.mjs';
import { runKiloSession } from './kilo-session.mjs';
import { runCodexSession } from './codex-session.mjs';
import { runVscodeSession } from './vscode-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
// The session lives once in the repo's fixtures folder, with its LICENSE and provenance.
export const SESSION = fileURLToPath(
  new URL('../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
);
const HTML = path.join(demoDir, 'out', 'hookwise-report.html');

// Bold only on a terminal that wants colour; a pipe or a log file gets plain text.
const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (text) => `\u001b[1m${text}\u001b[22m` : (text) => text;

function heading(text) {
  process.stdout.write(`\n${bold(text)}\n${'─'.repeat(Math.min(78, text.length))}\n`);
}

/** The `hookwise` command (@hookwise/cli) as installed here, run with this node. */
function hookwiseBin() {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@hookwise/cli/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.hookwise;
  if (!bin) throw new Error('@hookwise/cli has no "hookwise" bin');
  return path.join(path.dirname(manifestPath), bin);
}

async function main() {
  if (!existsSync(SESSION)) {
    process.stderr.write(`demo: the recorded session is missing: ${SESSION}\n`);
    return 1;
  }
  heading('1. Claude Code: a real recorded session (2,385 lines, 242 tool calls, one compaction)');
  process.stdout.write(`hookwise report ${path.relative(process.cwd(), SESSION)} --html ${path.relative(process.cwd(), HTML)}\n\n`);
  // The real CLI, as a user runs it: it replays the session through the plugins installed here.
  const result = spawnSync(process.execPath, [hookwiseBin(), 'report', SESSION, '--html', HTML], { cwd: demoDir, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`demo: hookwise report failed (exit ${result.status ?? result.signal})\n`);
    return result.status ?? 1;
  }
  process.stdout.write(`\nOpen the chart: file://${HTML}\n`);

  heading('2. VS Code: a scripted Roo-style task through @hookwise/adapter-vscode');
  const facts = await runVscodeSession({ projectDir: demoDir, print: (line) => process.stdout.write(`${line}\n`) });
  const pruned = facts.requests.filter((request) => request.saved > 0);
  process.stdout.write(
    `\n${facts.requests.length} model requests, ${pruned.length} pruned (up to ~${Math.max(0, ...pruned.map((request) => request.saved)).toLocaleString('en-US')} tokens not sent), ` +
      `${facts.suggestions.length} compaction suggestion(s), preserved at condense: ${facts.preserved.join(', ') || 'nothing'}\n`,
  );

  heading('3. OpenCode: a real OpenCode session through @hookwise/adapter-opencode, request by request');
  await runOpenCodeSession({ print: (line) => process.stdout.write(`${line}\n`) });

  heading('4. pi: a real pi session through @hookwise/adapter-pi, request by request');
  await runPiSession({ print: (line) => process.stdout.write(`${line}\n`) });

  heading('5. Codex CLI: a real Codex session through @hookwise/adapter-codex, request by request');
  await runCodexSession({ print: (line) => process.stdout.write(`${line}\n`) });

  heading('6. AI SDK: an agent app through @hookwise/ai-sdk, request by request');
  await runAiSdkSession({ print: (line) => process.stdout.write(`${line}\n`) });

  heading('7. Cline: a real Cline CLI session through @hookwise/adapter-cline, request by request');
  await runClineSession({ print: (line) => process.stdout.write(`${line}\n`) });
  heading('8. Gemini CLI: a real Gemini CLI session through @hookwise/adapter-gemini, through a compression');
  await runGeminiSession({ print: (line) => process.stdout.write(`${line}\n`) });
  heading('9. Kilo: a real Kilo session through @hookwise/adapter-kilo, request by request');
  await runKiloSession({ print: (line) => process.stdout.write(`${line}\n`) });

  process.stdout.write(`\nHTML report: ${HTML}\n`);
  return 0;
}

process.exitCode = await main();
