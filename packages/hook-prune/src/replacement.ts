import type { Message, MessagePart, ToolCallPart, ToolResultPart } from '@hookwise/core/messages';
import { rememberPartTokens } from '@hookwise/core/counting';
import { digestInput, digestOf, isPrunedOutput, recallOf } from './digest.js';
import { fileOfCall } from './file-context.js';
import type { FileIdentity } from './file-identity.js';
import {
  callJsonOf,
  F_FACTS,
  F_OUTPUT_PRUNED,
  F_PROMPT,
  F_PROTECTED,
  F_SKIP,
  F_SUMMARY,
  forEachResult,
  forgetFacts,
  type Entry,
  type HistoryIndex,
  type InputDigest,
  type OptionFacts,
  type Replacement,
} from './history-index.js';
import { countOutput, keepOutputTokens, outputTokens } from './output-tokens.js';
import type { Policy } from './policy.js';

/** One run: its policy, its input, and the output it builds (copy-on-write). */
export interface Run {
  readonly policy: Policy;
  readonly messages: Message[];
  output: Message[];
  prunedIds: string[];
  tokensReclaimed: number;
  /** The session's file names (`file-identity.ts`), when the file context made them: recall placeholders name files relative to its working directory. */
  files?: FileIdentity | undefined;
}

/** What an index's option-dependent facts depend on: what counts as pruned, protected or digestible, and how tokens are counted. */
interface FactsKey {
  counter: Policy['counter'];
  placeholder: string;
  protectedTools: readonly string[];
  digestTools: readonly string[] | undefined;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean => {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
};

/** Keeps the index's facts when they were found for these options, else forgets them (a host passes the same options every request). */
export function useFactsFor(index: HistoryIndex, policy: Policy): void {
  const key = index.options as FactsKey | undefined;
  const { counter, placeholderOption, protectedTools, digestTools } = policy;
  if (
    key !== undefined &&
    key.counter === counter &&
    key.placeholder === placeholderOption &&
    sameList(key.protectedTools, protectedTools) &&
    sameList(key.digestTools, digestTools)
  )
    return;
  forgetFacts(index);
  // Copies: a caller may change its list in place before the next run.
  index.options = {
    counter,
    placeholder: placeholderOption,
    protectedTools: protectedTools.slice(),
    digestTools: digestTools?.slice(),
  } satisfies FactsKey;
}

export function factsOf(entry: Entry, run: Run): OptionFacts {
  let facts = entry.facts;
  if (facts === undefined) {
    const output = entry.part!.output;
    const { placeholder, protectedTools } = run.policy;
    entry.facts = facts = {
      // Identity first: a placeholder this run or an earlier one wrote is the very same string.
      outputPruned: output === placeholder || isPrunedOutput(output, placeholder),
      protected: protectedTools.includes(entry.toolName ?? ''),
      outputTokens: -1,
      inputDigest: undefined,
      replacement: undefined,
    };
  }
  return facts;
}

function outputTokensOf(entry: Entry, facts: OptionFacts, run: Run): number {
  if (facts.outputTokens < 0) facts.outputTokens = outputTokens(entry.part!, run.policy.counter);
  return facts.outputTokens;
}

/** Tokens replacing the output would free. */
function outputGainOf(entry: Entry, facts: OptionFacts, run: Run): number {
  if (facts.outputPruned) return 0;
  const tokens = outputTokensOf(entry, facts, run);
  return tokens > run.policy.placeholderTokens ? tokens : 0;
}

/**
 * The digest of a write/edit-like call's input and the tokens of the input before and after;
 * null when it is not such a call or nothing in its input would be digested.
 */
function inputDigestOf(entry: Entry, facts: OptionFacts, run: Run): InputDigest | null {
  if (facts.inputDigest === undefined) {
    const name = entry.toolName;
    const call = entry.call?.part;
    const { digests, digestTools, counter } = run.policy;
    const digested =
      digests && name !== undefined && digestTools!.includes(name) && call !== undefined ? digestInput(call.input) : undefined;
    if (digested === undefined) facts.inputDigest = null;
    else {
      // The input as a request carries it (its JSON, made once for the supersede key too): core's figure of the call part.
      const before = counter.count(callJsonOf(entry) ?? '');
      rememberPartTokens(call!, counter, before);
      facts.inputDigest = { digested, before, after: counter.count(JSON.stringify(digested)) };
    }
  }
  return facts.inputDigest;
}

/** Tokens a digest of the call's input would free (0 when it is not a write/edit-like call or already digested). */
function inputGainOf(entry: Entry, facts: OptionFacts, run: Run): number {
  if (!run.policy.digests) return 0;
  const input = inputDigestOf(entry, facts, run);
  return input === null ? 0 : Math.max(0, input.before - input.after);
}

/**
 * The walk's facts about entry `at` for the run's options, in the index's flat arrays: whether
 * the walk passes it (`F_SKIP`), whether its output is pruned already, its window tokens and
 * its gain. Once per entry and options. Returns its flags.
 */
export function factsAt(index: HistoryIndex, at: number, run: Run): number {
  const entry = index.entries[at]!;
  const facts = factsOf(entry, run);
  let flags = index.flags[at]! | F_FACTS;
  if (facts.outputPruned) flags |= F_OUTPUT_PRUNED;
  if (facts.protected) flags |= F_PROTECTED;
  const inputGain = facts.protected ? 0 : inputGainOf(entry, facts, run);
  // Already pruned with nothing left in its input, or protected: nothing to count or take.
  if (facts.protected || (facts.outputPruned && inputGain === 0)) flags |= F_SKIP;
  else {
    index.windowTokens[at] = (facts.outputPruned ? 0 : outputTokensOf(entry, facts, run)) + inputGain;
    index.gains[at] = outputGainOf(entry, facts, run) + inputGain;
  }
  index.flags[at] = flags;
  return flags;
}

/**
 * Marks the entries whose ids are in `pruned` (earlier prunes) and returns this set's mark:
 * by id when the set is new to the index, then only over entries indexed since.
 */
export function markPruned(index: HistoryIndex, pruned: ReadonlySet<string>): number {
  const { flags, ids, prunedMarks } = index;
  const count = flags.length;
  if (index.prunedSet !== pruned) {
    const mark = ++index.prunedMark;
    for (const id of pruned) forEachResult(index, id, (at) => (prunedMarks[at] = mark));
    index.prunedSet = pruned;
  } else {
    const mark = index.prunedMark;
    for (let at = index.prunedUpTo; at < count; at++)
      if ((flags[at]! & (F_PROMPT | F_SUMMARY)) === 0 && pruned.has(ids[at]!)) prunedMarks[at] = mark;
  }
  index.prunedUpTo = count;
  return index.prunedMark;
}

/** The copy of a one-part message carrying `part` instead; undefined for other messages. */
function carrierOf(original: Message, part: MessagePart): Message | undefined {
  return original.parts.length === 1 ? { ...original, parts: [part] } : undefined;
}

/** The file a read or write named, relative to the session's working directory when under it. */
function displayedFile(entry: Entry, run: Run): string | undefined {
  const file = fileOfCall(entry.toolName, entry.call?.part.input);
  return file === undefined || run.files === undefined ? file : run.files.display(file);
}

/** What replacing a result writes (output, and the input of a write/edit-like call), or null when nothing would shrink. */
function replacementOf(entry: Entry, facts: OptionFacts, run: Run): Replacement | null {
  const part = entry.part!;
  const { counter, perOutput, placeholder, placeholderTokens, digests } = run.policy;
  let output: Replacement['output'];
  let input: Replacement['input'];
  const gain = outputGainOf(entry, facts, run);
  if (gain > 0) {
    const call = entry.call?.part;
    const replacement =
      perOutput === 'digest'
        ? digestOf(entry.toolName, call, part.output, gain)
        : perOutput === 'recall'
          ? recallOf(entry.toolName, call, part.output, displayedFile(entry, run))
          : placeholder;
    const replacementTokens = perOutput !== undefined ? countOutput(replacement, counter) : placeholderTokens;
    if (replacementTokens < gain) {
      const pruned: ToolResultPart = { ...part, output: replacement };
      keepOutputTokens(pruned, counter, replacementTokens);
      output = { part: pruned, reclaimed: gain - replacementTokens, carrier: carrierOf(run.messages[entry.messageIndex]!, pruned) };
    }
  }
  const digest = digests ? inputDigestOf(entry, facts, run) : null;
  if (digest !== null && digest.after < digest.before) {
    const { part: current, location } = entry.call!;
    const call: ToolCallPart = { ...current, input: digest.digested };
    rememberPartTokens(call, counter, digest.after);
    input = {
      location,
      part: call,
      reclaimed: digest.before - digest.after,
      carrier: carrierOf(run.messages[location.messageIndex]!, call),
    };
  }
  return output === undefined && input === undefined ? null : { output, input };
}

/** Puts `part` at `partIndex` of message `messageIndex` in the output (copy-on-write: each message copied once per run). */
function setPart(run: Run, messageIndex: number, partIndex: number, part: MessagePart, carrier: Message | undefined): void {
  const original = run.messages[messageIndex]!;
  let current = run.output[messageIndex]!;
  // A result carrier of one part: the same copy on every run of the index, while its part is the same.
  if (current === original && carrier !== undefined) {
    run.output[messageIndex] = carrier;
    return;
  }
  // A shared single-part copy is never written into: copy it again.
  if (current === original || original.parts.length === 1)
    run.output[messageIndex] = current = { ...current, parts: current.parts.slice() };
  (current.parts as MessagePart[])[partIndex] = part;
}

/** Replaces the output (and the write-like input) of one exchange; false when nothing would shrink. */
export function replace(entry: Entry, run: Run): boolean {
  const facts = factsOf(entry, run);
  let replacement = facts.replacement;
  // Computed once per entry and options: the same pruned parts on every run.
  if (replacement === undefined) facts.replacement = replacement = replacementOf(entry, facts, run);
  if (replacement === null) return false;
  const { output, input } = replacement;
  if (output !== undefined) {
    setPart(run, entry.messageIndex, entry.partIndex, output.part, output.carrier);
    run.tokensReclaimed += output.reclaimed;
  }
  if (input !== undefined) {
    setPart(run, input.location.messageIndex, input.location.partIndex, input.part, input.carrier);
    run.tokensReclaimed += input.reclaimed;
  }
  run.prunedIds.push(entry.part!.toolCallId);
  return true;
}
