import type { MergedOutcome } from '@hookwise/core';
import { CacheMeter, EditChecker, editedTexts } from '@hookwise/core/counting';
import type { Message } from '@hookwise/core/messages';
import type { TokenCounter } from '@hookwise/core';
import { type LiveHistory, messageTokens, TransformMeter } from './measure.js';
import type { PruneFigure, ReplayResult } from './replay-result.js';

export interface RequestPricerOptions {
  counter: TokenCounter;
  /** The replay's live history: what each request carries. */
  history: LiveHistory;
  /** `turn`: run `llm:before` once per turn and carry its figure to the turn's other requests. */
  sampling: 'turn' | 'every-request';
  result: ReplayResult;
  /** Emits `llm:before` on `messages` and records what the plugins said. */
  emit(line: number, messages: Message[]): Promise<MergedOutcome | undefined>;
}

/**
 * What a request transformer (hook-prune) changes in each request of a replay, and what that
 * costs: the tokens it reclaims, each request priced under prompt caching as the host sent it
 * and as transformed, and whether the old text an edit quotes was still in the request that
 * made it.
 */
export class RequestPricer {
  private readonly meter: TransformMeter;
  /** What each request cost under prompt caching as the host sent it, and as transformed. */
  private readonly cacheWithout: CacheMeter;
  private readonly cacheWith: CacheMeter;
  private readonly edits: EditChecker;
  /** The latest request's history, as the host sent it and as transformed: what its response's edits are checked against. */
  private lastRequest: { original: readonly Message[]; transformed: readonly Message[] } | undefined;
  /** The figure of this turn's first request, carried to its other requests (`turn` sampling). */
  private turnPrune: PruneFigure | undefined;

  constructor(private readonly options: RequestPricerOptions) {
    this.meter = new TransformMeter(options.counter);
    this.cacheWithout = new CacheMeter(options.counter);
    this.cacheWith = new CacheMeter(options.counter);
    this.edits = new EditChecker(options.counter);
  }

  /**
   * Runs `llm:before` on the live history: what a request transformer would change before this
   * request (`carry`), or in the history a compaction summarised.
   */
  async transform(line: number, { carry }: { carry: boolean }): Promise<PruneFigure | undefined> {
    const { history, sampling, result, counter } = this.options;
    if (history.length === 0) return undefined;
    if (carry && sampling === 'turn' && this.turnPrune !== undefined) return { ...this.turnPrune, messages: history.length };
    const original = history.messages();
    const outcome = await this.options.emit(line, original);
    result.pruneRuns++;
    const value = outcome?.value as Message[] | undefined;
    const diff = value === undefined ? { tokens: 0, parts: 0 } : this.meter.measure(original, value);
    const figure: PruneFigure = { reclaimedTokens: diff.tokens, parts: diff.parts, messages: original.length };
    if (carry && sampling === 'every-request') {
      // A request (not a compaction's history): priced both ways; its response's edits are checked against the meters' copies (the live history grows in place).
      figure.cache = { without: this.cacheWithout.request(original), withPrune: this.cacheWith.request(value ?? original) };
      this.lastRequest = { original: this.cacheWithout.messages, transformed: this.cacheWith.messages };
    }
    if (carry) this.turnPrune = figure;
    // The share a compaction could have been spared needs the whole history, counted the same way.
    else figure.historyTokens = original.reduce((sum, message) => sum + messageTokens(message, counter), 0);
    return figure;
  }

  /** Whether the old text an edit quotes was shown by the request that made it, and still shown after the transform. */
  checkEdits(line: number, toolName: string, input: unknown): void {
    const request = this.lastRequest;
    if (!request) return;
    for (const text of editedTexts(input)) {
      const check = this.edits.check(text, request.original, request.transformed);
      if (check.sourced) this.options.result.edits.push({ line, toolName, lost: check.lost, rereadTokens: check.rereadTokens });
    }
  }

  /** A user message: a transformer's choice may change from here. */
  newTurn(): void {
    this.turnPrune = undefined;
  }

  /** A compaction: what follows is a new context, cached anew. */
  clear(): void {
    this.meter.clear();
    this.cacheWithout.reset();
    this.cacheWith.reset();
    this.lastRequest = undefined;
    this.turnPrune = undefined;
  }
}
