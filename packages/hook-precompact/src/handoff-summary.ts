import type { TokenCounter } from '@hookwise/core';
import { FenceTracker } from './compact-summary.js';

/**
 * The phase hand-off summary: what an orchestrator keeps of a sub-agent's answer.
 *
 * react-basecamp's hand-off protocol asked for a `context_summary` of at most 500 tokens that
 * keeps `task_id`, `feature` and `spec_path`, actionable findings and the PROCEED / STOP /
 * CLARIFY decision, and drops search queries, intermediate steps and file contents — but nothing
 * enforced it. This module does, with the engine's token counter, on any output: a protocol JSON
 * response, a JSON `context_summary`, or free text.
 */
export interface HandoffFields {
  taskId?: string;
  feature?: string;
  specPath?: string;
  phase?: string;
  status?: string;
  decision?: 'PROCEED' | 'STOP' | 'CLARIFY';
}

export interface HandoffInput {
  output: string;
  /** The orchestrator's hand-off request (JSON or text), when the host knows it. */
  request?: string;
  taskId?: string;
  phase?: string;
  /** What earlier hand-offs of the session established. */
  remembered?: Pick<HandoffFields, 'taskId' | 'feature' | 'specPath'>;
}

export interface HandoffSummary {
  text: string;
  /** `context_summary` when the sub-agent supplied one, `derived` when it was built from the output. */
  source: 'context_summary' | 'derived';
  fields: HandoffFields;
  tokens: number;
  /** Candidate bullets left out to stay under the limit. */
  dropped: number;
}

export interface HandoffOptions {
  maxTokens: number;
  maxCodeLines: number;
  tokenCounter: TokenCounter;
}

const DECISIONS = ['PROCEED', 'STOP', 'CLARIFY'] as const;
const MAX_BULLET_CHARS = 400;

export function summarizeHandoff(input: HandoffInput, options: HandoffOptions): HandoffSummary {
  const output = typeof input.output === 'string' ? input.output.replace(/\r\n?/g, '\n') : '';
  const responseJson = findJsonObject(output);
  const requestJson = input.request ? findJsonObject(input.request) : undefined;

  const fields = resolveFields(input, output, responseJson, requestJson);
  let bullets: Bullet[];
  let source: HandoffSummary['source'] = 'derived';
  if (responseJson && responseJson.context_summary !== undefined && responseJson.context_summary !== null) {
    source = 'context_summary';
    bullets = bulletsFromValue(responseJson.context_summary).map((text) => ({ text, priority: 1 }));
  } else if (responseJson && looksLikeHandoffResponse(responseJson)) {
    bullets = bulletsFromResponse(responseJson);
  } else {
    bullets = bulletsFromText(output, options.maxCodeLines);
  }
  // Field lines the body repeats (`task_id: T-1`) would cost tokens twice; `Decision: STOP because …` stays.
  const known = new Set(Object.values(fields).map((value) => String(value).toLowerCase()));
  bullets = bullets.filter((bullet) => {
    const match = FIELD_LINE.exec(bullet.text);
    if (!match) return true;
    const value = bullet.text
      .slice(match[0].length)
      .trim()
      .replace(/^[`'"*]+|[`'"*]+$/g, '')
      .trim()
      .toLowerCase();
    return value !== '' && !/^(null|none|n\/a|-)$/.test(value) && !known.has(value);
  });
  return fitToLimit(fields, dedupe(bullets), source, options);
}

// ---------------------------------------------------------------------------------------------
// Fields

const FIELD_LINE = /^\**\s*(task[_ ]?id|feature|spec[_ ]?path|phase|status|decision)\s*\**\s*[:=]/i;

function resolveFields(
  input: HandoffInput,
  output: string,
  response: Record<string, unknown> | undefined,
  request: Record<string, unknown> | undefined,
): HandoffFields {
  const requestText = input.request ?? '';
  const pick = (...values: Array<string | undefined>) => values.find((value) => value !== undefined && value !== '');
  const fields: HandoffFields = {};
  const taskId = pick(
    input.taskId,
    jsonField(request, 'task_id'),
    textField(requestText, 'task[_ ]?id'),
    jsonField(response, 'task_id'),
    textField(output, 'task[_ ]?id'),
    input.remembered?.taskId,
  );
  const feature = pick(
    jsonField(request, 'feature'),
    textField(requestText, 'feature'),
    jsonField(response, 'feature'),
    textField(output, 'feature'),
    input.remembered?.feature,
  );
  const specPath = pick(
    jsonField(request, 'spec_path'),
    textField(requestText, 'spec[_ ]?path'),
    jsonField(response, 'spec_path'),
    textField(output, 'spec[_ ]?path'),
    input.remembered?.specPath,
  );
  const phase = pick(input.phase, jsonField(request, 'phase'), jsonField(response, 'phase'));
  const status = pick(jsonField(response, 'status'), textField(output, 'status'));
  if (taskId !== undefined) fields.taskId = taskId;
  if (feature !== undefined) fields.feature = feature;
  if (specPath !== undefined) fields.specPath = specPath;
  if (phase !== undefined) fields.phase = phase;
  if (status !== undefined) fields.status = status;
  const decision = findDecision(jsonField(response, 'decision'), output);
  if (decision !== undefined) fields.decision = decision;
  return fields;
}

/** `task_id` at the top level or under `context` / `task` (the protocol nests feature and spec_path in `context`). */
function jsonField(object: Record<string, unknown> | undefined, key: string): string | undefined {
  if (!object) return undefined;
  const camel = key.replace(/_(\w)/g, (_match, letter: string) => letter.toUpperCase());
  for (const holder of [object, object.context, object.task]) {
    if (typeof holder !== 'object' || holder === null) continue;
    for (const name of [key, camel]) {
      const value = (holder as Record<string, unknown>)[name];
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
      if (typeof value === 'number') return String(value);
    }
  }
  return undefined;
}

/** `task_id: T-12`, `**Feature**: auth`, `- spec_path = specs/a.md` at the start of a line. */
function textField(text: string, key: string): string | undefined {
  const match = new RegExp(`^\\s*(?:[-*]\\s+)?\\**\\s*${key}\\s*\\**\\s*[:=]\\s*(.+)$`, 'im').exec(text);
  if (!match) return undefined;
  const value = match[1]!
    .trim()
    .replace(/^[`'"*]+|[`'"*]+$/g, '')
    .trim();
  return value === '' || /^(null|none|n\/a|-)$/i.test(value) ? undefined : value.slice(0, 200);
}

function findDecision(fromJson: string | undefined, output: string): HandoffFields['decision'] {
  const normalise = (value: string | undefined) => DECISIONS.find((decision) => decision === value?.trim().toUpperCase());
  const json = normalise(fromJson);
  if (json) return json;
  const labelled = /\b(?:decision|recommendation|verdict)\b[^A-Za-z\n]{0,6}(proceed|stop|clarify)\b/i.exec(output);
  if (labelled) return normalise(labelled[1]);
  // A bare upper-case word: "STOP" in a sentence is a decision, "stop" is just a verb.
  const bare = /\b(PROCEED|STOP|CLARIFY)\b/.exec(output);
  return bare ? normalise(bare[1]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// JSON in the output

/**
 * The first JSON object in the text: the whole text, a fenced ```json block, or a balanced
 * `{ … }` span. Sub-agents often wrap their protocol JSON in prose.
 */
export function findJsonObject(text: string): Record<string, unknown> | undefined {
  const candidates: string[] = [text.trim()];
  for (const match of text.matchAll(/^ {0,3}(`{3,}|~{3,})\s*json[^\n]*\n([\s\S]*?)\n {0,3}\1\s*$/gim)) candidates.push(match[2]!);
  candidates.push(...balancedObjects(text));
  for (const candidate of candidates) {
    if (!candidate.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(candidate) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // not JSON; try the next candidate
    }
  }
  return undefined;
}

/** Top-level `{ … }` spans, skipping braces inside JSON strings. Bounded, so a huge output costs little. */
function balancedObjects(text: string, limit = 5): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length && spans.length < limit; index++) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"' && depth > 0) inString = true;
    else if (character === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (character === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, index + 1));
    }
  }
  return spans;
}

function looksLikeHandoffResponse(object: Record<string, unknown>): boolean {
  return ['findings', 'decision', 'issues', 'status', 'task_id'].some((key) => key in object);
}

// ---------------------------------------------------------------------------------------------
// Bullets

interface Bullet {
  text: string;
  /** 1: actionable (decisions, blockers, next steps); 2: other findings. */
  priority: 1 | 2;
}

function bulletsFromValue(value: unknown): string[] {
  if (typeof value === 'string')
    return value
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map(stripBullet)
      .filter((line) => line !== '');
  if (Array.isArray(value)) return value.flatMap((item) => (typeof item === 'string' ? bulletsFromValue(item) : [compactJson(item)]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).map(([key, inner]) => `${key}: ${typeof inner === 'string' ? inner : compactJson(inner)}`);
  return [String(value)];
}

/** The protocol's response without a context_summary: its findings and issues, not its raw data. */
function bulletsFromResponse(response: Record<string, unknown>): Bullet[] {
  const bullets: Bullet[] = [];
  const issues = response.issues;
  if (Array.isArray(issues))
    for (const issue of issues) bullets.push({ text: `issue: ${typeof issue === 'string' ? issue : compactJson(issue)}`, priority: 1 });
  const findings = response.findings;
  if (typeof findings === 'string') bullets.push(...bulletsFromValue(findings).map((text) => ({ text, priority: 2 as const })));
  else if (Array.isArray(findings)) bullets.push(...bulletsFromValue(findings).map((text) => ({ text, priority: 2 as const })));
  else if (typeof findings === 'object' && findings !== null) {
    for (const [key, value] of Object.entries(findings)) {
      if (NOISE_KEY.test(key)) continue;
      const priority = ACTIONABLE.test(key) ? 1 : 2;
      if (Array.isArray(value))
        for (const item of value) bullets.push({ text: `${key}: ${typeof item === 'string' ? item : compactJson(item)}`, priority });
      else bullets.push({ text: `${key}: ${typeof value === 'string' ? value : compactJson(value)}`, priority });
    }
  }
  return bullets;
}

/** Section headings and keys whose content is process, not result. */
const NOISE_HEADING =
  /\b(search(es|ed)?|quer(y|ies)|steps? taken|intermediate|process|exploration|explored|files? (read|opened|examined|searched)|tool calls?|log|transcript|raw output|thinking|reasoning)\b/i;
const NOISE_KEY = /^(search(es|_?queries)?|queries|steps|intermediate(_steps)?|files_read|raw|log|tool_calls)$/i;
/** Lines that narrate the work rather than report its result. */
const NOISE_LINE =
  /^(?:(?:i|we)(?:'ll| will| am going to| need to| now| then| first| next)\b|let me\b|let's\b|now,? (?:i|let)\b|first,? (?:i|let)\b|next,? (?:i|let)\b|then,? (?:i|let)\b|search(?:ed|ing)?\b|quer(?:y|ies)\s*:|grep(?:ped)?\b|rg\b|glob\b|find\s|looking (?:at|for|into|through)\b|checking\b|reading\b|read\s|opened\b|opening\b|running\b|ran\s|executing\b|explor(?:ed|ing)\b|scann(?:ed|ing)\b|step \d+\b|found \d+ (?:files?|matches|results|occurrences)\b)/i;
const ACTIONABLE =
  /\b(must|should|next|todo|to do|block(?:er|ed|ing)?|risk|issue|error|fail(?:s|ed|ure)?|bug|broken|decision|decided|recommend(?:s|ed|ation)?|requires?|missing|clarif(?:y|ication)|question|proceed|stop|action|fix|breaking|security|deadline)\b/i;
const PATH_TOKEN = /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s`'"):,])/;

/** Reasoning a model shows before its answer is an intermediate step by definition. */
const REASONING_BLOCK = /<(analysis|thinking|reasoning|scratchpad)>[\s\S]*?<\/\1>/gi;
const WRAPPER_TAG = /^<\/?(summary|answer|result|output|final)>$/i;

function bulletsFromText(output: string, maxCodeLines: number): Bullet[] {
  const bullets: Bullet[] = [];
  const lines = output.replace(REASONING_BLOCK, '').split('\n');
  const fences = new FenceTracker();
  let code: { info: string; lines: string[]; before: string } | undefined;
  // A heading or a `Label:` line sets the tone of what follows: skipped (search queries), actionable (next steps), or neither.
  let skipSectionLevel: number | undefined;
  let headingActionable = false;
  let skipLabelled = false;
  let labelActionable = false;
  let pendingLabel: string | undefined;
  let previous = '';
  const skipping = () => skipSectionLevel !== undefined || skipLabelled;
  for (const line of lines) {
    const wasInside = fences.inside;
    // Sub-agents nest code in list items, indented past Markdown's three spaces: any indentation counts here.
    const isFence = fences.consume(line.trimStart());
    if (isFence) {
      if (!wasInside) {
        code = {
          info: line
            .trim()
            .replace(/^(`{3,}|~{3,})/, '')
            .trim(),
          lines: [],
          before: previous,
        };
      } else if (!fences.inside) {
        if (code && !skipping()) pushCode(bullets, codeBullet(code, maxCodeLines), headingActionable || labelActionable, pendingLabel);
        pendingLabel = undefined;
        code = undefined;
      } else code?.lines.push(line);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const heading = /^(#{1,6})\s+(.*)$/.exec(trimmed);
    if (heading) {
      const level = heading[1]!.length;
      if (skipSectionLevel !== undefined && level > skipSectionLevel) continue;
      skipSectionLevel = NOISE_HEADING.test(heading[2]!) && !ACTIONABLE.test(heading[2]!) ? level : undefined;
      headingActionable = ACTIONABLE.test(heading[2]!);
      skipLabelled = labelActionable = false;
      pendingLabel = undefined;
      previous = trimmed;
      continue;
    }
    previous = trimmed;
    if (skipSectionLevel !== undefined) continue;
    if (/^([-*_]\s*){3,}$/.test(trimmed) || /^\|?[\s:|-]+\|[\s:|-]*$/.test(trimmed)) continue; // rules, table separators
    const text = stripBullet(trimmed);
    if (text === '' || WRAPPER_TAG.test(text)) continue;
    if (isLabel(text)) {
      skipLabelled = NOISE_HEADING.test(text) && !ACTIONABLE.test(text);
      labelActionable = ACTIONABLE.test(text);
      pendingLabel = text;
      continue;
    }
    // A paragraph line (not a list item) after a skipped `Queries:` list ends that list. The
    // bullet • is written \u2022 here and below: esbuild escapes strings but not regular
    // expressions, and an all-ASCII run bundle loads as a one-byte string (see bin/hookwise.cjs).
    if (skipLabelled && !/^\s*(?:[-*+\u2022]|\d+[.)])\s/.test(line)) skipLabelled = false;
    if (skipLabelled || NOISE_LINE.test(text)) continue;
    pendingLabel = undefined;
    bullets.push({ text, priority: headingActionable || labelActionable || ACTIONABLE.test(text) ? 1 : 2 });
  }
  if (code && !skipping()) pushCode(bullets, codeBullet(code, maxCodeLines), headingActionable || labelActionable, pendingLabel);
  return bullets;
}

/** `Next steps:`, `4. Errors and Fixes:` — a short line that only announces what follows. */
function isLabel(text: string): boolean {
  return text.endsWith(':') && text.length <= 80 && !/[.!?]\s/.test(text);
}

/**
 * A label right before code introduces it ("Quick fix:", "src/a.ts:"): one bullet for both, and
 * the label alone goes when it only repeats the code's path.
 */
function pushCode(
  bullets: Bullet[],
  text: { bullet: string; location?: string } | undefined,
  actionable: boolean,
  label: string | undefined,
): void {
  if (!text) return;
  const priority = actionable ? 1 : 2;
  if (label === undefined) {
    bullets.push({ text: text.bullet, priority });
    return;
  }
  const labelText = label.slice(0, -1).replace(/`/g, '').trim();
  bullets.push({ text: text.location !== undefined && labelText === text.location ? text.bullet : `${label} ${text.bullet}`, priority });
}

/** Short code stays (a command, a one-line fix); longer code becomes its path, or goes. */
function codeBullet(
  code: { info: string; lines: string[]; before: string },
  maxCodeLines: number,
): { bullet: string; location?: string } | undefined {
  const content = code.lines.filter((line) => line.trim() !== '');
  if (content.length === 0) return undefined;
  if (content.length <= maxCodeLines) return { bullet: content.map((line) => `\`${line.trim()}\``).join(' ') };
  const fromInfo =
    /(?:title|file|path)=["']?([^"'\s]+)/.exec(code.info)?.[1] ??
    PATH_TOKEN.exec(` ${code.info.split(/\s+/).slice(1).join(' ')} `)?.[1] ??
    (code.info.includes('/') || code.info.includes('.') ? code.info.split(/\s+/)[0] : undefined);
  const location = fromInfo ?? PATH_TOKEN.exec(code.before)?.[1];
  return location ? { bullet: `code: ${location} (${content.length} lines, not kept)`, location } : undefined;
}

function stripBullet(line: string): string {
  return line
    .trim()
    .replace(/^(?:[-*+\u2022]|\d+[.)])\s+/, '')
    .replace(/^\[[ xX]\]\s+/, '')
    .trim();
}

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function dedupe(bullets: Bullet[]): Bullet[] {
  const seen = new Set<string>();
  return bullets.filter((bullet) => {
    const key = bullet.text.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// The limit

function fieldLines(fields: HandoffFields): string[] {
  const lines: string[] = [];
  if (fields.taskId !== undefined) lines.push(`task_id: ${fields.taskId}`);
  if (fields.feature !== undefined) lines.push(`feature: ${fields.feature}`);
  if (fields.specPath !== undefined) lines.push(`spec_path: ${fields.specPath}`);
  if (fields.phase !== undefined) lines.push(`phase: ${fields.phase}`);
  if (fields.status !== undefined) lines.push(`status: ${fields.status}`);
  if (fields.decision !== undefined) lines.push(`decision: ${fields.decision}`);
  return lines;
}

/**
 * Fields first, always; then actionable bullets, then the other findings, each while the whole
 * stays within `maxTokens`. Kept bullets are shown in their original order. A bullet that does
 * not fit is shortened when it is actionable, skipped otherwise (a later, shorter one may fit).
 */
function fitToLimit(fields: HandoffFields, bullets: Bullet[], source: HandoffSummary['source'], options: HandoffOptions): HandoffSummary {
  const count = (lines: string[]) => options.tokenCounter.count(lines.map((line) => `- ${line}`).join('\n'));
  const head = fieldLines(fields).map((line) => shorten(line, 200));
  const chosen = new Map<number, string>();
  const render = () => [...head, ...[...chosen.entries()].sort(([left], [right]) => left - right).map(([, text]) => text)];
  let dropped = 0;
  for (const priority of [1, 2] as const) {
    bullets.forEach((bullet, index) => {
      if (bullet.priority !== priority) return;
      let text = shorten(bullet.text, MAX_BULLET_CHARS);
      chosen.set(index, text);
      while (count(render()) > options.maxTokens) {
        if (priority === 2 || text.length <= 60) {
          chosen.delete(index);
          dropped++;
          return;
        }
        text = shorten(text, Math.floor(text.length * 0.6));
        chosen.set(index, text);
      }
    });
  }
  let lines = render();
  if (lines.length === 0) lines = ['(the sub-agent returned nothing to hand over)'];
  // Fields alone over the limit (absurdly long values): cut from the end, keeping the limit absolute.
  while (lines.length > 1 && count(lines) > options.maxTokens) lines.pop();
  let text = lines.map((line) => `- ${line}`).join('\n');
  while (options.tokenCounter.count(text) > options.maxTokens && text.length > 0) text = text.slice(0, Math.floor(text.length * 0.9));
  return { text, source, fields, tokens: options.tokenCounter.count(text), dropped };
}

function shorten(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1)).trimEnd()}…`;
}
