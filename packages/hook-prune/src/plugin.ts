import path from 'node:path';
import { definePlugin, type HookContext, type OutcomeOf, type PluginFactory, type PointPayload, type SchemaLike } from '@hookwise/core';
import { isSafeName, resolveContextWindow } from '@hookwise/core/plugin';
// The same link-refusing writes as core's state store: nothing under .hookwise is followed out of it.
import { writeFileAtomicInside } from '@hookwise/core/fs';
import * as z from 'zod/mini';
import { version } from '../package.json';
import { SessionPrunings, type SessionPruning } from './session-pruners.js';
import { CACHE_AWARE_POLICY } from './policy.js';
import { thresholdsFor } from './thresholds.js';
import { DEFAULT_UNTRIMMED_TOOLS, trimNote, trimToolOutput, type TrimmedOutput } from './trim-output.js';

const tokens = () => z.number().check(z.nonnegative());

// Built on first use, not at import: a hook call whose options the run bundle validated when it
// was built never needs it.
const buildOptionsSchema = () =>
  z.object({
    /**
     * `cache-aware` (default): `CACHE_AWARE_POLICY`, made to lower the bill under prompt caching
     * without losing what edits quote. `window`: the earlier rule, a protected window of the
     * newest 40,000 tool tokens and batches over 20,000 (scaled to the context window).
     */
    policy: z.optional(z.enum(['cache-aware', 'window'])),
    /** Fixed thresholds; when left out they follow the request's context window or model (`thresholdsFor`). */
    protectTokens: z.optional(tokens()),
    minimumTokens: z.optional(tokens()),
    /** Newest tool results never pruned (default 1 with `cache-aware`, 3 with `window`). */
    keepRecent: z.optional(z.number().check(z.int(), z.nonnegative())),
    /** Reads and writes of files touched by the newest this-many tool results kept whole (default 8 with `cache-aware`; 0 turns it off). */
    keepFileContext: z.optional(z.number().check(z.int(), z.nonnegative())),
    /** Keep the reads and writes of files edited since the latest compaction (default true with `cache-aware`; under pressure they go too). */
    keepEditedFiles: z.optional(z.boolean()),
    /** A batch is committed only when it frees at least this multiple of the tokens sent after its oldest result (default 2 with `cache-aware`; 0: the plain minimum rule). */
    cacheBreakRatio: z.optional(z.number().check(z.nonnegative())),
    /** Last user turns kept whole (default 0; 2 is OpenCode's rule). */
    protectTurns: z.optional(z.number().check(z.int(), z.nonnegative())),
    protectedTools: z.optional(z.array(z.string())),
    /** Tools whose old inputs are replaced by a digest (default `DEFAULT_DIGEST_INPUT_TOOLS`), or false. */
    digestInputs: z.optional(z.union([z.literal(false), z.array(z.string())])),
    /** Replacement text, `'recall'` (default with `cache-aware`: what was there and how to get it back), or `'digest'`. */
    placeholder: z.optional(z.string().check(z.minLength(1))),
    supersede: z.optional(z.boolean()),
    /**
     * Remember which results were pruned (in session state) and prune them again on later
     * requests, so the prompt prefix changes once per batch instead of on every request.
     * Default true.
     */
    sticky: z.optional(z.boolean()),
    /**
     * From this share of the context window on (the request's `contextTokens`, else the history's
     * estimate), every eligible result is pruned at once, `minimumTokens` waived: the context is
     * where compacting is advised (hook-suggest's first band), and a compaction would invalidate
     * the prompt cache anyway. Percent; default 70; 100 turns it off.
     */
    pressurePercent: z.optional(z.number().check(z.gt(0), z.lte(100))),
    /**
     * Pressure also from this many tokens, whatever the window: a 1M-token window is compacted by
     * hand long before 70 % of it. Default 140,000 (70 % of a 200k window) with `cache-aware`, none with `window`.
     */
    pressureTokens: z.optional(z.number().check(z.positive())),
    /**
     * On `tool:after`, cut an oversized output to its head and tail as it arrives and save the
     * full text under `.hookwise/outputs/<session>/<tool call id>.txt` (hosts that cannot rewrite
     * the history later, such as Claude Code, apply it). `false` turns it off.
     */
    trimOutputs: z.optional(
      z.union([
        z.literal(false),
        z.object({
          /** Trim outputs whose text is longer than this (default 10,000 characters). */
          overChars: z.optional(z.number().check(z.int(), z.positive())),
          headChars: z.optional(z.number().check(z.int(), z.nonnegative())),
          tailChars: z.optional(z.number().check(z.int(), z.nonnegative())),
          /** Tools never trimmed (default Read, Edit, Write, MultiEdit, NotebookEdit). */
          exceptTools: z.optional(z.array(z.string())),
        }),
      ]),
    ),
  });

/** The options' zod schema (zod/mini), a new one each call; the plugin's definition builds its own on first use. */
export const prunePluginOptionsSchema = buildOptionsSchema;

export type PrunePluginOptions = z.infer<ReturnType<typeof prunePluginOptionsSchema>>;

/**
 * What the plugin's definition validates with: no options (`{}`: a JSON config's `true`, the
 * report's default plugins) resolve to `{}` without the zod schema being built, which is most
 * of loading the plugin; anything else goes through the schema, built on first use. `{}` is
 * what the schema makes of them (index.test.ts holds the two equal).
 */
export function definitionOptionsSchema(): SchemaLike<PrunePluginOptions> {
  let schema: ReturnType<typeof buildOptionsSchema> | undefined;
  return { safeParse: (value) => (isNoOptions(value) ? { success: true, data: {} } : (schema ??= buildOptionsSchema()).safeParse(value)) };
}

/** A plain object without a key: the options a factory called without any gets. */
function isNoOptions(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const _key in value) return false;
  return true;
}

interface StickyState {
  prunedIds: string[];
}

const PLUGIN_NAME = '@hookwise/hook-prune';

const isString = (id: unknown): id is string => typeof id === 'string';

async function readPrunedIds(context: HookContext<PrunePluginOptions>): Promise<string[] | undefined> {
  try {
    const state = await context.state.read<StickyState>();
    const ids = state?.prunedIds as unknown;
    if (!Array.isArray(ids)) return undefined;
    // The list as stored (the usual case: all strings) or its strings only; read before every request.
    return ids.every(isString) ? ids : ids.filter(isString);
  } catch (error) {
    // Without the memory of earlier prunes the request is still correct, only less cache-friendly.
    context.logger.warn('hook-prune: could not read earlier prunes; pruning without them', { error: (error as Error).message });
    return undefined;
  }
}

/** The default of `pressurePercent`: where the user of the recorded session compacted (README, "pressurePercent"). */
export const DEFAULT_PRESSURE_PERCENT = 70;
/** The default of `pressureTokens`: 70 % of a 200k window, where larger windows reach it too (README, "pressurePercent"). */
export const DEFAULT_PRESSURE_TOKENS = 140_000;
/**
 * Under pressure the cache-aware policy still commits a batch only when it frees at least what
 * the cache writes again after it (ratio 1, not 2, and not 0): at 0 a session near the threshold
 * broke the cache on nearly every request for little (1.03× with 1-hour writes), while ratio 1
 * still reclaims at least 35 % at every compaction point and needs no more compactions (bench/README.md, issue #36).
 */
export const PRESSURE_CACHE_BREAK_RATIO = 1;
/**
 * Pressure needs two sizes: the history as it would be without hook-prune (the host's measure
 * plus what hook-prune cleared from the request it measured) reaches the pressure point, and what
 * is sent (pi and OpenCode measure their last response: pruned) reaches this share of it. A
 * session whose prunes keep what is sent well below the point is not pressed; one whose history
 * is small is not either. Fewer edits lost on the sets it was not chosen on, every compaction
 * still avoided (bench/README.md, issue #36, row 35).
 */
export const PRESSURE_SENT_SHARE = 0.7;

/** Sessions whose pruners a plugin instance keeps (a host runs a few at once). */
const SESSIONS_KEPT = 32;

async function onLlmBefore(payload: PointPayload<'llm:before'>, context: HookContext<PrunePluginOptions>, session: SessionPruning) {
  const options = context.options;
  const thresholds = options.policy === 'window' ? thresholdsFor(payload.contextWindow ?? payload.model) : CACHE_AWARE_POLICY;
  const cacheAware = options.policy !== 'window';
  const sticky = options.sticky !== false;
  const previouslyPruned = sticky ? await readPrunedIds(context) : undefined;
  // The host measures what it sent (pruned); the estimate of the messages is of the whole history.
  const reclaimed = session.lastReclaimed;
  const measured = payload.contextTokens;
  const wholeTokens = measured !== undefined ? measured + reclaimed : session.historyTokens(payload.messages, context.tokenCounter);
  const sentTokens = measured ?? Math.max(0, wholeTokens - reclaimed);
  const { contextWindow } = resolveContextWindow({ hostWindow: payload.contextWindow, model: payload.model, contextTokens: wholeTokens });
  const pressureAt = Math.min(
    (contextWindow * (options.pressurePercent ?? DEFAULT_PRESSURE_PERCENT)) / 100,
    options.pressureTokens ?? (cacheAware ? DEFAULT_PRESSURE_TOKENS : Infinity),
  );
  const underPressure = wholeTokens >= pressureAt && sentTokens >= PRESSURE_SENT_SHARE * pressureAt;
  // Pressure far from the window (a 1M-token session past `pressureTokens`): no compaction is near,
  // so the short edits stay with the edited files gone; near the window they go too.
  const nearWindow = wholeTokens >= (contextWindow * (options.pressurePercent ?? DEFAULT_PRESSURE_PERCENT)) / 100;
  const keepEditedFiles = options.keepEditedFiles ?? (cacheAware ? CACHE_AWARE_POLICY.keepEditedFiles : undefined);

  // Options left out stay undefined: pruneToolOutputs takes undefined as its default.
  const result = session.pruner.prune(payload.messages, {
    protectTokens: options.protectTokens ?? thresholds.protectTokens,
    minimumTokens: underPressure ? 0 : (options.minimumTokens ?? thresholds.minimumTokens),
    keepRecent: options.keepRecent ?? (cacheAware ? CACHE_AWARE_POLICY.keepRecent : undefined),
    keepFileContext: options.keepFileContext ?? (cacheAware ? CACHE_AWARE_POLICY.keepFileContext : undefined),
    // Under pressure edited files are no longer kept and the minimum is waived: a compaction
    // would rewrite the cache, and lose more, anyway. A batch must still pay at ratio 1.
    keepEditedFiles: underPressure ? false : keepEditedFiles,
    keepShortEdits: underPressure && !nearWindow && keepEditedFiles === true,
    cacheBreakRatio: underPressure
      ? cacheAware
        ? Math.min(PRESSURE_CACHE_BREAK_RATIO, options.cacheBreakRatio ?? PRESSURE_CACHE_BREAK_RATIO)
        : 0
      : (options.cacheBreakRatio ?? (cacheAware ? CACHE_AWARE_POLICY.cacheBreakRatio : undefined)),
    protectTurns: options.protectTurns,
    protectedTools: options.protectedTools,
    digestInputs: options.digestInputs,
    placeholder: options.placeholder ?? (cacheAware ? CACHE_AWARE_POLICY.placeholder : undefined),
    supersede: options.supersede,
    workingDirectory: payload.cwd,
    previouslyPruned,
    tokenCounter: context.tokenCounter,
  });
  context.logger.debug(`hook-prune: ${result.reason}`, { decision: result.decision });
  session.lastReclaimed = result.messages === payload.messages ? 0 : result.tokensReclaimed;
  if (result.messages === payload.messages) return undefined;

  if (result.decision === 'pruned') {
    if (sticky) {
      try {
        // Only ids still in this history: the list shrinks by itself after a compaction.
        await context.state.update<StickyState>(() => ({ prunedIds: result.prunedIds }));
      } catch (error) {
        context.logger.warn('hook-prune: could not remember pruned results', { error: (error as Error).message });
      }
    }
    await context.record({
      type: 'prune:applied',
      sessionId: payload.sessionId,
      tokensReclaimed: result.tokensReclaimed,
      prunedCount: result.prunedCount,
      scannedCount: result.scannedCount,
      reason: result.reason,
    });
  }
  return { value: result.messages };
}

/** Where the full text of a trimmed output goes, relative to the project. */
export function trimmedOutputPath(sessionId: string, toolUseId: string): string {
  return `.hookwise/outputs/${sessionId}/${toolUseId}.txt`;
}

/**
 * Synchronous unless it saved a file and records it: most outputs are left alone, and a hook
 * that returns a value at once costs the engine no deadline timer and no promise.
 */
function onToolAfter(
  payload: PointPayload<'tool:after'>,
  context: HookContext<PrunePluginOptions>,
): OutcomeOf<'tool:after'> | undefined | Promise<OutcomeOf<'tool:after'> | undefined> {
  const trim = context.options.trimOutputs;
  if (trim === false || !payload.ok || payload.toolUseId === undefined) return undefined;
  if ((trim?.exceptTools ?? DEFAULT_UNTRIMMED_TOOLS).includes(payload.toolName)) return undefined;
  if (!isSafeName(payload.sessionId) || !isSafeName(payload.toolUseId)) {
    context.logger.warn('hook-prune: not trimming an output whose session or tool call id is not a safe file name', {
      toolName: payload.toolName,
    });
    return undefined;
  }
  const relative = trimmedOutputPath(payload.sessionId, payload.toolUseId);
  // The file is named only for an output that is cut (most are not), and once.
  let file: string | undefined;
  const fileOf = () => (file ??= path.join(context.projectDir, relative));
  const trimmed = trimToolOutput(payload.output, (cutChars) => trimNote(cutChars, fileOf()), trim ?? {});
  if (trimmed === undefined) return undefined;
  // A replay shows what would be cut, and nothing is applied or written.
  if (context.dryRun) return { value: trimmed.value };
  // An output is never cut without its full text saved, and an ephemeral host writes no files.
  if (context.ephemeral) return undefined;
  try {
    // Every level from .hookwise down must be a real folder (a planted link is refused), and the
    // file is written through a fresh temp file and a rename, never through an existing link.
    writeFileAtomicInside(path.join(context.projectDir, '.hookwise'), fileOf(), trimmed.fullText);
  } catch (error) {
    context.logger.warn('hook-prune: could not save the full output; leaving it whole', { error: (error as Error).message });
    return undefined;
  }
  return recordTrim(payload, context, relative, trimmed);
}

async function recordTrim(
  payload: PointPayload<'tool:after'>,
  context: HookContext<PrunePluginOptions>,
  relative: string,
  trimmed: TrimmedOutput,
): Promise<OutcomeOf<'tool:after'>> {
  await context.record({
    type: 'prune:trimmed',
    sessionId: payload.sessionId,
    toolName: payload.toolName,
    toolUseId: payload.toolUseId,
    charsBefore: trimmed.charsBefore,
    charsAfter: trimmed.charsAfter,
    path: relative,
  });
  return { value: trimmed.value };
}

const meta = { name: PLUGIN_NAME, version };

/** A plugin definition whose hooks share one set of session pruners. */
function definePrunePlugin() {
  const sessions = new SessionPrunings(SESSIONS_KEPT);
  return definePlugin<PrunePluginOptions, PrunePluginOptions>({
    meta,
    options: definitionOptionsSchema,
    on: { 'llm:before': (payload, context) => onLlmBefore(payload, context, sessions.get(payload.sessionId)), 'tool:after': onToolAfter },
  });
}

/**
 * The plugin: on every model request (`llm:before`), replaces the request's messages with
 * pruned ones. The stored history is never changed; what was reclaimed goes to the event log
 * as `{ type: 'prune:applied', tokensReclaimed, prunedCount, scannedCount }`. Each instance
 * keeps a pruner per session, so sessions sharing a process never share or evict one's index.
 */
export const prune = Object.defineProperties((options?: PrunePluginOptions) => definePrunePlugin()(options), {
  meta: { value: meta, enumerable: true },
  // A fresh definition each time: its hooks own their pruners, as an instance's do.
  definition: { get: () => definePrunePlugin().definition, enumerable: true },
}) as PluginFactory<PrunePluginOptions, PrunePluginOptions>;
