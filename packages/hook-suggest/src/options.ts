import path from 'node:path';
import * as z from 'zod/mini';

const isRelativePath = (value: string) => !path.isAbsolute(value) && !path.win32.isAbsolute(value);

// The schema's defaults, in its field order (`defaultSuggestOptions` is what the schema makes of `{}`).
const defaults = { capacityPercent: 70, capacityStep: 10, toolCalls: 50, toolCallStep: 25, toolCallBackoff: 2, compactionNotice: true };

// Built on first use, not at import: a call whose options the run bundle validated when it was
// built never needs it, and building it slows a hook call's start.
const buildOptionsSchema = () =>
  z.strictObject({
    /** First capacity band, in percent of the context window. Default 70. */
    capacityPercent: z._default(z.number().check(z.gt(0), z.lt(100)), defaults.capacityPercent),
    /** Distance between capacity bands: with the defaults a suggestion at 70, 80 and 90 %. Default 10. */
    capacityStep: z._default(z.number().check(z.gt(0)), defaults.capacityStep),
    /** Tool calls since the last compaction at which the first tool-call suggestion comes. Default 50. */
    toolCalls: z._default(z.number().check(z.int(), z.positive()), defaults.toolCalls),
    /** The first gap between tool-call suggestions (the second comes at 75 with the defaults). Default 25. */
    toolCallStep: z._default(z.number().check(z.int(), z.positive()), defaults.toolCallStep),
    /** How much each later gap grows: 2 gives 50, 75, 125, 225, …; 1 keeps every gap at `toolCallStep`. Default 2. */
    toolCallBackoff: z._default(z.number().check(z.gte(1)), defaults.toolCallBackoff),
    /**
     * Context percent under which later tool-call suggestions pass in silence (the first always
     * comes); 0 repeats them at any size. Default: half the first capacity band (35 %).
     */
    quietBelowPercent: z.optional(z.number().check(z.gte(0), z.lt(100))),
    /** Context window in tokens, overriding what the host reports and what the model implies (200k, 1M for `[1m]`). */
    contextWindow: z.optional(z.number().check(z.int(), z.positive())),
    /**
     * The compaction log (JSONL), relative to the project. Default `.hookwise/logs/compaction.jsonl`.
     */
    logPath: z.optional(z.string().check(z.minLength(1), z.refine(isRelativePath, { message: 'must be a path relative to the project' }))),
    /** Tell the user after every compaction what happened and what was kept. Default true. */
    compactionNotice: z._default(z.boolean(), defaults.compactionNotice),
  });

/**
 * The zod schema (zod/mini) of `suggest(...)`'s options, a new one each call (the plugin's
 * definition builds its own on first use). Every field is optional; the defaults follow the
 * spec (70 %, 50 calls).
 */
export const suggestOptionsSchema = buildOptionsSchema;

export type SuggestOptions = z.output<ReturnType<typeof suggestOptionsSchema>>;
export type SuggestOptionsInput = z.input<ReturnType<typeof suggestOptionsSchema>>;

/** The defaults, for callers of the pure functions that have no plugin options at hand. */
export const defaultSuggestOptions: SuggestOptions = defaults;

/** Capacity bands in percent, lowest first: `capacityPercent`, then every `capacityStep` below 100. */
export function capacityBands(options: Pick<SuggestOptions, 'capacityPercent' | 'capacityStep'>): number[] {
  const bands: number[] = [];
  // Rounded to 1e-9 so that 70 + 10 + 10 gives 90, not 90.00000000000001.
  for (let band = options.capacityPercent; band < 100; band = Math.round((band + options.capacityStep) * 1e9) / 1e9) bands.push(band);
  return bands;
}

export const DEFAULT_COMPACTION_LOG = '.hookwise/logs/compaction.jsonl';

/** Where compactions are logged, relative to the project: the same place under every host. */
export function compactionLogPath(options: Pick<SuggestOptions, 'logPath'>): string {
  return options.logPath ?? DEFAULT_COMPACTION_LOG;
}
