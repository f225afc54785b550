import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookEntry, HookwiseConfig } from '@hookwise/core';

/** Test helpers for src/report (not part of the package's API). */

const fixtures = fileURLToPath(new URL('../../../../fixtures/claude-code-transcripts/', import.meta.url));

export const bigSession = `${fixtures}marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl`;

/** Every transcript in the repo's fixtures folder. */
export const fixtureTranscripts = [
  bigSession,
  `${fixtures}marot-spotter/short.jsonl`,
  `${fixtures}marot-spotter/tool_heavy.jsonl`,
  `${fixtures}marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl`,
  `${fixtures}daaain-claude-code-log/representative_messages.jsonl`,
  `${fixtures}daaain-claude-code-log/edge_cases.jsonl`,
  `${fixtures}daaain-claude-code-log/session_b.jsonl`,
  `${fixtures}daaain-claude-code-log/todowrite_examples.jsonl`,
];

/**
 * The three plugins, from source like core (unit tests run on source; the report itself only
 * ever loads plugins through a config). Imported lazily so a test file that does not need
 * them does not pay for them.
 */
export async function threePlugins(pruneOptions?: { protectTokens: number; minimumTokens: number }): Promise<HookwiseConfig> {
  const [prune, precompact, suggest] = await Promise.all([
    import('../../../hook-prune/src/index.js'),
    import('../../../hook-precompact/src/index.js'),
    import('../../../hook-suggest/src/index.js'),
  ]);
  return { plugins: [prune.default(pruneOptions), precompact.default(), suggest.default()] };
}

/** hook-prune's thresholds small enough for a short session (an OpenCode export, a pi session): the figures compared are not all zero. */
export const SHORT_SESSION_PRUNE = { protectTokens: 1_000, minimumTokens: 200 };

/** Keeps only the newest tool result of a history whole: figures that are never all zero. */
export const keepNewestResult: HookEntry<'llm:before'> = {
  name: 'keep-newest-result',
  handler: (payload) => {
    const results = payload.messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'));
    if (results.length < 2) return undefined;
    const newest = results.at(-1);
    return {
      value: payload.messages.map((message) => ({
        ...message,
        parts: message.parts.map((part) => (part.type === 'tool-result' && part !== newest ? { ...part, output: '[cleared]' } : part)),
      })),
    };
  },
};

export interface IndependentFigures {
  lines: number;
  malformed: number;
  toolCalls: number;
  /** Line of each main-chain tool_use block, in order. */
  toolUseLines: number[];
  compactions: Array<{ line: number; trigger: string | undefined; preTokens: number | undefined }>;
  /** Distinct main-chain API responses with usage: first line and final figures. */
  responses: Array<{ line: number; contextTokens: number }>;
  peakContextTokens: number;
}

/**
 * The figures the report must show, computed here with nothing but JSON.parse, so a bug shared
 * by the replay and a helper cannot hide.
 */
export function independentFigures(file: string): IndependentFigures {
  const text = readFileSync(file, 'utf8');
  const rows = text.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  const figures: IndependentFigures = {
    lines: rows.length,
    malformed: 0,
    toolCalls: 0,
    toolUseLines: [],
    compactions: [],
    responses: [],
    peakContextTokens: 0,
  };
  const byId = new Map<string, { line: number; contextTokens: number }>();
  rows.forEach((row, index) => {
    const line = index + 1;
    if (row.trim() === '') return;
    let value: any;
    try {
      value = JSON.parse(row);
    } catch {
      figures.malformed++;
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      figures.malformed++;
      return;
    }
    if (value.type === 'system' && value.subtype === 'compact_boundary') {
      figures.compactions.push({ line, trigger: value.compactMetadata?.trigger, preTokens: value.compactMetadata?.preTokens });
      return;
    }
    if (value.type !== 'user' && value.type !== 'assistant') return;
    const message = value.message;
    if (
      typeof message !== 'object' ||
      message === null ||
      Array.isArray(message) ||
      (typeof message.content !== 'string' && !Array.isArray(message.content))
    ) {
      figures.malformed++;
      return;
    }
    // Content blocks that are not objects are left out of the message and the line is counted (core's rule).
    if (
      Array.isArray(message.content) &&
      message.content.some((block: unknown) => typeof block !== 'object' || block === null || Array.isArray(block))
    )
      figures.malformed++;
    if (value.isSidechain === true || value.type !== 'assistant') return;
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (block?.type === 'tool_use') {
        figures.toolCalls++;
        figures.toolUseLines.push(line);
      }
    }
    const usage = message.usage;
    // Synthetic responses and API errors measured nothing (core's rule).
    if (!usage || message.model === '<synthetic>' || value.isApiErrorMessage === true) return;
    const contextTokens = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
    if (contextTokens === 0) return;
    const known = byId.get(message.id);
    if (known) known.contextTokens = contextTokens;
    else {
      const response = { line, contextTokens };
      if (typeof message.id === 'string') byId.set(message.id, response);
      figures.responses.push(response);
    }
  });
  figures.peakContextTokens = Math.max(0, ...figures.responses.map((response) => response.contextTokens));
  return figures;
}

/**
 * `hookwise report --json` on `text` written to `<dir>/<name>`: its exit code and what it wrote.
 * The report is imported on first use, like the plugins above.
 */
export async function reportJsonOn(dir: string, name: string, text: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { reportCommand } = await import('./command.js');
  const file = path.join(dir, name);
  await writeFile(file, text);
  let stdout = '';
  let stderr = '';
  const code = await reportCommand({
    transcript: file,
    json: true,
    projectDir: dir,
    configFile: undefined,
    stdout: (chunk) => (stdout += chunk),
    stderr: (chunk) => (stderr += chunk),
  });
  return { code, stdout, stderr };
}
