// For an in-process host that hands hookwise the functions themselves (an app's tools, an app's
// own compaction) rather than events around them: hookwise runs each between its two points.
import type { HostSession } from './host-session.js';

const isText = (text: unknown): text is string => typeof text === 'string' && text.trim() !== '';

/**
 * A tool run under `tool:before` and `tool:after`. A block gives `{ blocked }` and the tool does
 * not run; a tool that throws is told to `tool:after` (`ok: false`) and the error rethrown; an
 * output `unseen` picks (a stream the host passes on) goes back untouched. Otherwise `tool:after`
 * sees the output, its context waits for the next request, and `replaced` is what hooks gave instead.
 */
export async function runTool(
  session: HostSession<any>,
  call: { toolName: string; input: unknown; toolUseId?: string | undefined },
  execute: () => unknown,
  unseen: (output: unknown) => boolean = () => false,
): Promise<{ blocked: string } | { output: unknown; replaced?: unknown }> {
  const before = await session.emit('tool:before', () => call);
  if (before?.block) return { blocked: before.block.reason };
  const startedAt = Date.now();
  let output: unknown;
  try {
    output = await execute();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await session.emit('tool:after', () => ({ ...call, output: message, ok: false, error: message, durationMs: Date.now() - startedAt }));
    throw error;
  }
  if (unseen(output)) return { output };
  const after = await session.emit('tool:after', () => ({ ...call, output, ok: true, durationMs: Date.now() - startedAt }));
  session.addContext(after?.context);
  return after?.value === undefined ? { output } : { output, replaced: after.value };
}

/**
 * A compaction the host runs itself. `compact:before` cannot stop it (a hook that asks is
 * logged); `run` gets the context hooks want kept. Then `compact:after` with the `summary` and
 * `tokensAfter` `run` gives back, if any; its context goes into every later request. Gives what
 * `run` gives.
 */
export async function runCompaction<T>(
  session: HostSession<any>,
  compaction: { trigger: 'manual' | 'auto'; tokensBefore: number | undefined },
  run: (instructions: string | undefined) => T | Promise<T>,
): Promise<T> {
  const { trigger, tokensBefore } = compaction;
  const before = await session.emitUnblockable(
    'compact:before',
    () => ({ trigger, contextTokens: tokensBefore }),
    'to stop this compaction; the host decides, and compacts',
  );
  const result = await run(isText(before?.context) ? before.context : undefined);
  await session.guard('compact:after', async () => {
    const { summary, tokensAfter } = (result ?? {}) as { summary?: unknown; tokensAfter?: unknown };
    const after = typeof tokensAfter === 'number' ? tokensAfter : undefined;
    // The context measured before the compaction no longer describes the conversation.
    await session.compacted({
      trigger,
      tokensBefore,
      tokensAfter: after,
      contextTokens: after,
      summary: typeof summary === 'string' ? summary : undefined,
    });
  });
  return result;
}
