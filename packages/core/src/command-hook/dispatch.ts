import type { Engine } from '../engine.js';
import type { ContextUsageFields } from '../messages/context-usage.js';
import { joinText, noticeText, type HookFailure, type MergedOutcome, type NoticeWording } from '../outcome.js';
import type { PointInput, PointName } from '../points.js';
import { isListening } from '../host-kit.js';
import { fileSize } from './json-lines.js';
import { renderHookJson, type HookOutputFormat } from './output.js';

/** The fields every point's payload carries, from the fields every hook event carries. */
export type CommonFields = { sessionId: string; cwd?: string; transcriptPath?: string; model?: string; contextWindow?: number };
/** What an adapter passes for a point: the payload without the fields every event carries. */
export type PointFields<P extends PointName> = Omit<PointInput<P>, keyof CommonFields>;

/** What a command-hook adapter's dispatch returns: what to print on stdout ('' for nothing), the failures and the points that ran. */
export type DispatchResult = { stdout: string; errors: HookFailure[]; points: PointName[] };

/** What the plugins decided for one hook call, in host-neutral terms; the adapter renders it. */
export interface EventResult {
  context?: string | undefined;
  notice?: string | undefined;
  block?: { reason: string } | undefined;
  /** A host that lets a hook replace a tool's output (Claude Code's PostToolUse) renders this. */
  updatedToolOutput?: unknown;
}

/**
 * How a host's transcript tells the context size: read once per hook call (only when a plugin
 * needs it), then turned into payload fields per point. Claude Code reads its transcript's tail,
 * Codex its rollout's last `token_count`.
 */
export interface ContextUsageReader<Tail = unknown> {
  read(transcriptPath: string): Promise<Tail | undefined>;
  fieldsOf(point: PointName, tail: Tail): ContextUsageFields;
}

export interface EventDispatchOptions {
  /** The adapter's own state namespace (per session). */
  namespace: string;
  /** How notices name the host's actions (`Consider /compact now.`); without it, the engine's host-neutral text. */
  wording?: NoticeWording | undefined;
  contextUsage?: ContextUsageReader<any> | undefined;
  /** The host's deadline: hooks still running when it aborts are abandoned (see `Engine.emit`). */
  signal?: AbortSignal | undefined;
}

/** The notices of an outcome as the user sees them: each plugin's statement, then its offers in the host's words. */
export function noticeIn(
  merged: Pick<MergedOutcome, 'notice' | 'notices'> | undefined,
  wording: NoticeWording | undefined,
): string | undefined {
  if (!wording) return merged?.notice;
  let text: string | undefined;
  for (const notice of merged?.notices ?? [])
    text = joinText(text, noticeText({ text: notice.statement, actions: notice.actions }, wording), 'notice');
  return text;
}

/**
 * One hook call's dispatch, for a command-hook adapter: the points it ran, the failures, what the
 * plugins decided (merged), the adapter's per-session state (read once, updated under the store's
 * lock) and the context size from the transcript for plugins that need it. A class rather than
 * closures made per event: `hookwise report` replays some 500 events through it.
 */
export class EventDispatch<State extends { model?: string } = { model?: string }> {
  readonly points: PointName[] = [];
  readonly errors: HookFailure[] = [];
  readonly result: EventResult = {};
  private stateRead: { value: State | undefined } | undefined;
  private tailRead: Promise<unknown> | undefined;

  constructor(
    readonly engine: Engine,
    readonly common: CommonFields,
    readonly options: EventDispatchOptions,
  ) {}

  /** The common fields of a hook event's snake_case input. */
  static commonOf(input: { session_id: string; cwd?: string | undefined; transcript_path?: string | undefined }): CommonFields {
    // Built by assignment: a conditional spread makes an object per field.
    const common: CommonFields = { sessionId: input.session_id };
    if (input.cwd !== undefined) common.cwd = input.cwd;
    if (input.transcript_path !== undefined) common.transcriptPath = input.transcript_path;
    return common;
  }

  async emit<P extends PointName>(point: P, payload: PointFields<P>): Promise<MergedOutcome<P> | undefined> {
    // The payload is built in steps (the session's model comes from state), so the kit's rule is asked first.
    if (!isListening(this.engine, point)) return undefined;
    this.points.push(point);
    const model = (await this.state())?.model;
    // Object.assign, not spreads: payloads come in many shapes, and spreading objects of many
    // shapes takes V8's slow path on every event.
    const full = Object.assign(model ? { model } : {}, this.common, payload);
    if (
      this.common.transcriptPath &&
      this.options.contextUsage &&
      (payload as { contextTokens?: number }).contextTokens === undefined &&
      this.engine.needs(point, 'contextUsage')
    )
      await this.addContextUsage(point, full as Record<string, unknown>);
    const merged = await this.engine.emit(
      point,
      full as unknown as PointInput<P>,
      this.options.signal ? { signal: this.options.signal } : undefined,
    );
    for (const failure of merged.errors) this.errors.push(failure);
    return merged;
  }

  /** Emits and merges what the plugins decided into {@link result}. */
  async run<P extends PointName>(point: P, payload: PointFields<P>): Promise<MergedOutcome<P> | undefined> {
    const merged = await this.emit(point, payload);
    this.absorb(merged);
    return merged;
  }

  /**
   * Adds what the transcript says of the context, for plugins that need it; payload fields
   * already set win. Read at most once per dispatch, and only for points such a plugin listens
   * on: every tool call's hook process pays for it.
   */
  private async addContextUsage(point: PointName, full: Record<string, unknown>): Promise<void> {
    const reader = this.options.contextUsage!;
    this.tailRead ??= reader.read(this.common.transcriptPath!).catch((error: unknown) => {
      // A transcript not written yet (first turn) or unreadable: no figure this time.
      this.engine.services.logger.debug(`no context size from the transcript: ${(error as Error).message}`);
      return undefined;
    });
    const tail = await this.tailRead;
    if (tail === undefined) return;
    const fields = reader.fieldsOf(point, tail) as Record<string, unknown>;
    for (const name in fields) if (full[name] === undefined) full[name] = fields[name];
  }

  /** The session's adapter state, read once per dispatch (again after an update); a failed read is reported once. */
  async state(): Promise<State | undefined> {
    if (this.stateRead) return this.stateRead.value;
    let value: State | undefined;
    try {
      value = await this.engine.services.stateStore.read<State>(this.common.sessionId, this.options.namespace);
    } catch (error) {
      this.errors.push(stateFailure(`could not read adapter state: ${(error as Error).message}`));
    }
    this.stateRead = { value };
    return value;
  }

  /** Changes the adapter state under the store's lock; false (and a reported failure) when it could not. */
  async update(change: (state: State) => State): Promise<boolean> {
    this.stateRead = undefined;
    try {
      await this.engine.services.stateStore.update<State>(this.common.sessionId, this.options.namespace, (current) =>
        change(current ?? ({} as State)),
      );
      return true;
    } catch (error) {
      this.errors.push(stateFailure(`could not update adapter state: ${(error as Error).message}`));
      return false;
    }
  }

  /** Sets fields of the adapter state, an undefined value removing its field; one update, none when nothing changes. */
  async patch(changes: Partial<State>): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await this.update((current) => {
      const next: Record<string, unknown> = { ...current, ...changes };
      for (const [name, value] of Object.entries(changes)) if (value === undefined) delete next[name];
      return next as State;
    });
  }

  /**
   * Keeps text in the adapter state for a later event of the session: for a host that drops the
   * context one event gives but keeps another's (Codex: PostCompact's, SessionStart(compact)'s).
   */
  async keep(key: string, text: string): Promise<void> {
    const at = this.engine.services.clock.now();
    await this.update((state) => ({ ...state, kept: { ...(state as Kept).kept, [key]: { text, at } } }));
  }

  /** Takes what {@link keep} kept under `key` (removing it); undefined when there is none or it is older than `maxAgeMs`. */
  async take(key: string, maxAgeMs: number): Promise<string | undefined> {
    const kept = ((await this.state()) as Kept | undefined)?.kept?.[key];
    if (!kept) return undefined;
    await this.update((state) => {
      const { [key]: _taken, ...rest } = (state as Kept).kept ?? {};
      return { ...state, kept: rest };
    });
    return Math.abs(this.engine.services.clock.now() - kept.at) <= maxAgeMs ? kept.text : undefined;
  }

  /**
   * A compaction the host tells of only afterwards (the adapter finds it in its transcript at a
   * later event): runs compact:before and compact:after with the sizes the host's usage figures
   * gave, their context left out of this event's result (the summary is made). Returns what
   * compact:after handed back, for the adapter to deliver where its host lets context reach the model.
   */
  async compactedEarlier(
    trigger: 'manual' | 'auto',
    sizes: { tokensBefore?: number | undefined; tokensAfter?: number | undefined },
  ): Promise<string | undefined> {
    const before: PointFields<'compact:before'> = { trigger };
    const after: PointFields<'compact:after'> = { trigger };
    if (sizes.tokensBefore !== undefined) {
      Object.assign(before, { contextTokens: sizes.tokensBefore, contextSource: 'usage' });
      after.tokensBefore = sizes.tokensBefore;
    }
    if (sizes.tokensAfter !== undefined) Object.assign(after, { tokensAfter: sizes.tokensAfter, contextSource: 'usage' });
    const outcomes: Array<MergedOutcome | undefined> = [await this.emit('compact:before', before)];
    outcomes.push(await this.emit('compact:after', after));
    for (const outcome of outcomes) this.absorb(outcome && { ...outcome, context: undefined });
    const kept = outcomes[1]?.context;
    return kept?.trim() ? kept : undefined;
  }

  /**
   * For a host whose event fires before a compaction that may not happen (Gemini's PreCompress
   * fires before every model request): remembers the transcript's size and the context size now,
   * for {@link settleCompaction} at a later event to judge from what the transcript shows since.
   */
  async mayCompact(trigger: 'manual' | 'auto', tokensBefore: number | undefined): Promise<void> {
    const file = this.common.transcriptPath;
    const offset = fileSize(file);
    if (!file || offset === undefined) return;
    const pending: PendingCompaction = { trigger, file, offset };
    if (tokensBefore !== undefined) pending.tokensBefore = tokensBefore;
    await this.update((state) => ({ ...state, compactionWatch: { ...(state as Watched).compactionWatch, pending } }));
  }

  /**
   * Judges what {@link mayCompact} remembered: `find` reads the compaction the transcript shows
   * after the offset, if any (a key that stays the same when the host rewrites that history
   * again, and the context size after it); a new one runs {@link compactedEarlier}. Returns
   * undefined when there was none, else what compact:after handed back (`kept`).
   */
  async settleCompaction(
    find: (file: string, offset: number) => { key: string; tokensAfter?: number | undefined } | undefined,
  ): Promise<{ kept: string | undefined } | undefined> {
    const watch = ((await this.state()) as Watched | undefined)?.compactionWatch;
    if (!watch?.pending) return undefined;
    const { trigger, file, offset, tokensBefore } = watch.pending;
    const found = find(file, offset);
    const fresh = found !== undefined && found.key !== watch.last ? found : undefined;
    const last = fresh?.key ?? watch.last;
    await this.update((state) => ({ ...state, compactionWatch: last === undefined ? {} : { last } }));
    if (!fresh) return undefined;
    return { kept: await this.compactedEarlier(trigger, { tokensBefore, tokensAfter: fresh.tokensAfter }) };
  }

  /** {@link result} as JSON in the form the event accepts (see `renderHookJson`), with the failures and the points that ran. */
  render(event: string, format: HookOutputFormat): DispatchResult {
    const json = renderHookJson(event, this.result, format);
    return { stdout: json ? JSON.stringify(json) : '', errors: this.errors, points: this.points };
  }

  /** Merges an outcome into {@link result}: contexts and notices joined in order, the first block wins. */
  absorb(merged: MergedOutcome | undefined): void {
    if (!merged) return;
    const result = this.result;
    result.context = joinText(result.context, merged.context, 'context');
    result.notice = joinText(result.notice, noticeIn(merged, this.options.wording), 'notice');
    if (merged.block && !result.block) result.block = { reason: merged.block.reason };
  }
}

type Kept = { kept?: Record<string, { text: string; at: number }> };
type PendingCompaction = { trigger: 'manual' | 'auto'; file: string; offset: number; tokensBefore?: number };
/** What {@link EventDispatch.mayCompact} keeps: a compaction not judged yet, and the key of the last one found. */
type Watched = { compactionWatch?: { pending?: PendingCompaction; last?: string } };

const stateFailure = (message: string): HookFailure => ({ pluginName: 'hookwise', hookName: 'adapter-state', kind: 'error', message });

/** A SessionStart `source` as a `session:start` source (`fork` is a resumed session). */
export function sessionSource(source: string | undefined): 'startup' | 'resume' | 'clear' | 'compact' {
  if (source === 'resume' || source === 'clear' || source === 'compact') return source;
  if (source === 'fork') return 'resume';
  return 'startup';
}

/** A compaction trigger as the points take it. */
export const compactTrigger = (trigger: unknown): 'manual' | 'auto' | undefined =>
  trigger === 'manual' || trigger === 'auto' ? trigger : undefined;
