// One session's bookkeeping in the in-process host kit: started once, the fields every payload
// carries, contexts waiting for the next model request, and what hooks handed back at a
// compaction, kept in the state store so a later process of the same session has it too.
import { definedFields, errorMessage } from '../host-kit.js';
import { formatTokens } from '../format-tokens.js';
import type { MergedOutcome, NoticeAction } from '../outcome.js';
import type { PointInput, PointName } from '../points.js';
import { CompactionSteps } from './compaction-steps.js';
import type { SlashCommand } from '../slash-command.js';
import type { EmitCallOptions, Host } from './create-host.js';

/** What every payload of a session carries, as far as the host knows it. */
export interface CommonFields {
  cwd?: string | undefined;
  model?: string | undefined;
  contextTokens?: number | undefined;
  contextWindow?: number | undefined;
  transcriptPath?: string | undefined;
}

/** A notice's offer of a plugin command, run through the engine for the session. */
export type CommandAction = Extract<NoticeAction, { command: string }>;

/** The context in use, for a status display: `short` as `62%` of the window (`48,000 tok` without one), `long` with both figures. */
export interface ContextUsage {
  tokens: number;
  window?: number;
  percent?: number;
  short: string;
  long: string;
}

/** Where a session keeps the key of the last compaction it reported after the fact. */
const SEEN_COMPACTION = 'seenCompaction';

const isText = (text: unknown): text is string => typeof text === 'string' && text.trim() !== '';

export class HostSession<S extends object = object> {
  /** What the host knows of the session (its model, its context usage). */
  readonly fields: CommonFields = {};
  /** Read at each emit, for a host that asks its own API (pi's `getContextUsage()`); wins over `fields`. */
  usage: (() => CommonFields) | undefined;
  /** Contexts from points that cannot add to a request themselves, for the next model request only. */
  readonly nextRequest: string[] = [];
  /** A compaction the host tells in steps (its trigger, compact:before, its end). */
  readonly compaction: CompactionSteps = new CompactionSteps(this, (work) => this.host.within(work));
  /** The slash command the user typed, for the `prompt:submit` of the prompt the host expands from it. */
  pendingCommand: SlashCommand | undefined;
  /** The trigger of the compaction under way, from the host's `compact:before` to {@link compacted}. */
  compactTrigger: PointInput<'compact:before'>['trigger'] | undefined;
  /** `tool:after` emits while hookwise is on: the session's tool calls, for a status display. */
  toolCalls = 0;
  /** The plugin command the latest notice that offered one offered (a host's button or command runs it later). */
  offeredCommand: CommandAction | undefined;
  private started = false;
  private kept: Record<string, string> = {};
  private restored: Promise<Record<string, string>> | undefined;
  private requestContext: string | undefined;

  constructor(
    private readonly host: Host<S>,
    readonly id: string,
    /** The adapter's own fields. */
    readonly data: S,
    private readonly namespace: string,
  ) {}

  /** The fields every payload of this session carries. */
  common(): { sessionId: string } & CommonFields {
    return definedFields({ sessionId: this.id, cwd: this.host.projectDir, ...this.fields, ...this.usage?.() });
  }

  /** Emits `point` with the session's common fields; see {@link Host.emit}. */
  emit<P extends PointName>(
    point: P,
    fields: () => Partial<PointInput<P>> = () => ({}),
    call?: EmitCallOptions,
  ): Promise<MergedOutcome<P> | undefined> {
    return this.host.emit(this, point, fields, call);
  }

  /**
   * `session:start` on the first call for this session (`startup` for a new one, `resume` for one
   * the host met mid-way); its context, if any. Later calls give undefined.
   */
  async start(source: PointInput<'session:start'>['source']): Promise<string | undefined> {
    if (this.started) return undefined;
    this.started = true;
    const outcome = await this.emit('session:start', () => ({ source }));
    return outcome?.context;
  }

  /** The context in use as far as the host knows it (`usage`, else `fields`); undefined when it was not told. */
  contextUsage(): ContextUsage | undefined {
    const { contextTokens: used, contextWindow: window } = this.common();
    if (used === undefined) return undefined;
    if (window === undefined || window <= 0)
      return { tokens: used, short: `${formatTokens(used)} tok`, long: `${formatTokens(used)} tokens` };
    const percent = Math.round((used / window) * 100);
    return {
      tokens: used,
      window,
      percent,
      short: `${percent}%`,
      long: `${formatTokens(used)} of ${formatTokens(window)} tokens (${percent}%)`,
    };
  }

  /**
   * Runs a plugin command a notice offered (`engine.runCommand`) for this session. Its answer is
   * logged at info and a failure as a warning; either is given back for the host to show. Never throws.
   */
  async runCommand(action: Pick<CommandAction, 'command' | 'args'>): Promise<{ text: string } | { error: string }> {
    const engine = await this.host.engine();
    if (!engine) return { error: `hookwise is off here: ${action.command} did not run` };
    try {
      const text = await engine.runCommand(action.command, action.args ?? [], { sessionId: this.id });
      this.host.logger.info(`${action.command} (session ${this.id}): ${text || 'done'}`);
      return { text };
    } catch (error) {
      this.host.logger.warn(`${action.command} (session ${this.id}) failed: ${errorMessage(error)}`);
      return { error: errorMessage(error) };
    }
  }

  /** `session:end` with `reason`; then the host forgets the session (a later call for its id starts afresh). */
  async end(reason: string): Promise<void> {
    await this.emit('session:end', () => ({ reason }));
    this.host.forget(this.id);
  }

  /** Runs a piece of the host's handling for this session fail-open; see {@link Host.guard}. */
  guard<T>(what: string, body: () => Promise<T>): Promise<T | undefined> {
    return this.host.guard(what, this.id, body);
  }

  /** The pending slash command, taken (a second call gives none). */
  takeCommand(): SlashCommand | undefined {
    const command = this.pendingCommand;
    this.pendingCommand = undefined;
    return command;
  }

  /** The contexts waiting for the next request, taken (a second call gives none). */
  takeNextRequest(): string[] {
    return this.nextRequest.splice(0);
  }

  /** Keeps a hook's context for the next model request (nothing for none or an empty one). */
  addContext(context: string | undefined): void {
    if (isText(context)) this.nextRequest.push(context);
  }

  /**
   * The texts hookwise adds to a model request, in order: what hooks handed back at the last
   * compaction, the contexts waiting for this request and `beforeRequest`'s (taken), then `extra`;
   * empty ones left out.
   */
  async requestTexts(...extra: Array<string | undefined>): Promise<string[]> {
    const requestContext = this.requestContext;
    this.requestContext = undefined;
    return [(await this.restore()).afterCompaction, ...this.takeNextRequest(), requestContext, ...extra].filter(isText);
  }

  /**
   * `llm:before` of a request whose system text the host adds in a later step: the hooks' context
   * waits for that step's `requestTexts` (after the waiting contexts, before `extra`).
   */
  async beforeRequest(fields: () => Partial<PointInput<'llm:before'>>): Promise<MergedOutcome<'llm:before'> | undefined> {
    this.requestContext = undefined;
    const outcome = await this.emit('llm:before', fields);
    this.requestContext = outcome?.context;
    return outcome;
  }

  /**
   * Emits a point whose block the host cannot honour: a hook that asks for one is logged at
   * `level` as `a hook asked <asked>: <reason>`.
   */
  async emitUnblockable<P extends PointName>(
    point: P,
    fields: () => Partial<PointInput<P>>,
    asked: string,
    level: 'warn' | 'info' = 'warn',
  ): Promise<MergedOutcome<P> | undefined> {
    const outcome = await this.emit(point, fields);
    if (outcome?.block) this.host.logger[level](`a hook asked ${asked}: ${outcome.block.reason}`);
    return outcome;
  }

  /**
   * `compact:after`: the hooks' context is kept for every later request (and later processes),
   * in place of what an earlier compaction kept; the session's context size is the one `fields`
   * give (undefined: unknown until the host measures it again). The trigger is `compactTrigger`
   * (taken) unless `fields` name one.
   */
  async compacted(fields: Partial<PointInput<'compact:after'>>): Promise<MergedOutcome<'compact:after'> | undefined> {
    const trigger = fields.trigger ?? this.compactTrigger;
    this.compactTrigger = undefined;
    const outcome = await this.emit('compact:after', () => ({ ...fields, trigger }));
    this.fields.contextTokens = fields.contextTokens as number | undefined;
    await this.keep({ afterCompaction: isText(outcome?.context) ? outcome.context : undefined });
    return outcome;
  }

  /**
   * A compaction the host shows only after it made it (a request that starts with its summary):
   * `compact:before` observes it (a block is logged: too late), then {@link compacted}. Once per
   * `key` (`fields` is read then), kept with what compact:after handed back, so no later request or process of the
   * session reports the same compaction again.
   */
  async compactedEarlier(key: string, fields: () => Partial<PointInput<'compact:after'>>): Promise<void> {
    if ((await this.restore())[SEEN_COMPACTION] === key) return;
    await this.keep({ [SEEN_COMPACTION]: key });
    const after = fields();
    const { trigger, tokensBefore } = after;
    await this.emitUnblockable('compact:before', () => ({ trigger, contextTokens: tokensBefore }), 'to stop a compaction already made');
    await this.compacted({ ...after, compactionId: key });
  }

  /**
   * What hooks handed back at the last compaction (`afterCompaction`, and any field a host keeps
   * with it), from memory or, in a new process, from the state store. Read from the store once.
   */
  restore(): Promise<Record<string, string>> {
    this.restored ??= (async () => {
      const engine = await this.host.engine();
      if (engine && this.host.persists(this.id)) {
        const stored = await engine.services.stateStore.read<Record<string, unknown>>(this.id, this.namespace).catch(() => undefined);
        for (const [key, value] of Object.entries(stored ?? {}))
          if (typeof value === 'string' && !(key in this.kept)) this.kept[key] = value;
      }
      return this.kept;
    })();
    return this.restored;
  }

  /**
   * Keeps what hooks handed back at a compaction: in memory for this process and in the state
   * store for later ones (a field given undefined is dropped). Never throws.
   */
  async keep(fields: Record<string, string | undefined>): Promise<void> {
    const next: Record<string, string> = { ...this.kept };
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    this.kept = next;
    this.restored = Promise.resolve(next);
    const engine = await this.host.engine();
    if (!engine || !this.host.persists(this.id)) return;
    await engine.services.stateStore
      .update(this.id, this.namespace, (stored: Record<string, unknown> | undefined) => {
        const merged: Record<string, unknown> = { ...(stored ?? {}), ...fields };
        return definedFields(merged);
      })
      .catch((error: unknown) =>
        this.host.logger.warn(`could not keep the post-compaction context for later processes: ${errorMessage(error)}`),
      );
  }
}
