/** The window every current Claude model has unless it runs in its 1M-token variant. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** The window of `[1m]` models (e.g. `claude-sonnet-4-5[1m]`). */
export const ONE_MILLION_CONTEXT_WINDOW = 1_000_000;

// Claude Code spells the 1M variant as a `[1m]` suffix on the model id (settings, SessionStart's
// `model`); the API's own model names in a transcript never carry it.
const ONE_MILLION_SUFFIX = /\[1m\]\s*$/i;

/**
 * The context window of `model` in tokens: `override` when it is a positive number, 1,000,000
 * for `[1m]` models, otherwise 200,000. An unknown or missing model gets the default, because
 * that is what every current Claude model has without the 1M option. Local models follow no
 * naming rule: pass their window as `override`.
 */
export function contextWindowFor(model?: string, override?: number): number {
  if (override !== undefined && Number.isFinite(override) && override > 0) return override;
  if (typeof model === 'string' && ONE_MILLION_SUFFIX.test(model)) return ONE_MILLION_CONTEXT_WINDOW;
  return DEFAULT_CONTEXT_WINDOW;
}

export interface ResolvedContextWindow {
  contextWindow: number;
  /** Where the figure came from, so a notice or a report can say how sure it is. */
  source: 'option' | 'host' | 'model' | 'inferred' | 'default';
}

/**
 * The window for a measurement: the user's override wins (they know their plan), then what the
 * host reports, then the model id. When the measured context is already larger than the window
 * the model implies, the guess is wrong: the session must run a 1M model whose id we did not see
 * (transcripts name models without `[1m]`), so the 1M window is used instead of reporting more
 * than 100 %.
 */
export function resolveContextWindow(input: {
  override?: number | undefined;
  hostWindow?: number | undefined;
  model?: string | undefined;
  contextTokens?: number | undefined;
}): ResolvedContextWindow {
  if (input.override !== undefined && Number.isFinite(input.override) && input.override > 0)
    return { contextWindow: input.override, source: 'option' };
  if (input.hostWindow !== undefined && Number.isFinite(input.hostWindow) && input.hostWindow > 0)
    return { contextWindow: input.hostWindow, source: 'host' };
  const fromModel = contextWindowFor(input.model);
  if (input.contextTokens !== undefined && input.contextTokens > fromModel && fromModel < ONE_MILLION_CONTEXT_WINDOW) {
    return { contextWindow: ONE_MILLION_CONTEXT_WINDOW, source: 'inferred' };
  }
  return { contextWindow: fromModel, source: input.model === undefined ? 'default' : 'model' };
}
