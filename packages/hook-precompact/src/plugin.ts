import {
  definePlugin,
  HookwiseError,
  UnsafeNameError,
  type HookMap,
  type Logger,
  type PluginCommand,
  type PluginContext,
  type SessionState,
} from '@hookwise/core';
import { parseSlashCommand } from '@hookwise/core/messages';
import {
  activateCommand,
  clearActiveCommands,
  deactivateCommand,
  listActiveCommands,
  readAgileflowCommands,
  writeAgileflowPrecompactStamp,
  type SessionRecord,
} from './active-commands.js';
import { assertCommandName, displayCommandName, findCommandFile } from './command-files.js';
import { summarizeHandoff } from './handoff-summary.js';
import {
  appendTraceEntry,
  clearIntent,
  getSelectedIntent,
  mergeTraces,
  readLedger,
  readStoredTrace,
  selectIntent,
  targetFilesOf,
  type TraceEntry,
} from './intent-trace.js';
import { summarizeIntent } from './intent-summary.js';
import { PLUGIN_NAME, PLUGIN_VERSION } from './meta.js';
import { pluginOptionsSchema, type CommandsOptions, type IntentOptions, type PrecompactOptions } from './options.js';
import { buildPreservedBlock, collectCommandSections, type IntentSection, type PreservedBlock } from './preserved-block.js';

interface Services {
  projectDir: string;
  options: PrecompactOptions;
  state: SessionState;
  projectState: SessionState;
  logger: Logger;
  /** `context.record`: appends to the event log, never throws. */
  record: PluginContext['record'];
  now: Date;
}

/** A hook must never break the agent: report and step aside. */
async function guarded<T>(
  what: string,
  services: Pick<Services, 'logger' | 'record'>,
  sessionId: string,
  body: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await body();
  } catch (error) {
    await reportFailure(what, services, sessionId, error);
    return undefined;
  }
}

/** What {@link guarded} does with a failure (hooks on every event catch their own: no closure per call). */
async function reportFailure(
  what: string,
  services: Pick<Services, 'logger' | 'record'>,
  sessionId: string,
  error: unknown,
): Promise<void> {
  services.logger.warn(`${PLUGIN_NAME}: ${what} failed: ${(error as Error).message}`);
  await services.record({ type: 'precompact:error', what, sessionId, message: (error as Error).message });
}

// ---------------------------------------------------------------------------------------------
// Intent

export interface LoadedIntent {
  id: string;
  history: TraceEntry[];
  /** Null under the threshold. */
  summary: string | null;
  sources: string[];
}

/** The intent's history from both sources and its summary. */
export async function loadIntent(
  intentId: string,
  services: { projectDir: string; projectState: SessionState },
  options: IntentOptions,
): Promise<LoadedIntent> {
  const mutatingTools = new Set(options.mutatingTools);
  const sources: string[] = [];
  let ledger: TraceEntry[] = [];
  if (options.ledgerPath !== false) {
    const read = await readLedger(services.projectDir, options.ledgerPath, intentId, { maxBytes: options.ledgerMaxBytes, mutatingTools });
    ledger = read.entries;
    if (ledger.length > 0) sources.push(options.ledgerPath);
  }
  const own = await readStoredTrace(services.projectState, intentId);
  if (own.length > 0) sources.push('hookwise trace');
  const history = mergeTraces(ledger, own);
  return { id: intentId, history, summary: summarizeIntent(intentId, history, options), sources };
}

async function intentSection(
  services: Pick<Services, 'options' | 'projectDir' | 'projectState'>,
  payloadIntentId: unknown,
): Promise<IntentSection | undefined> {
  if (services.options.intent === false) return undefined;
  const intentId = intentIdOf(payloadIntentId) ?? (await getSelectedIntent(services.projectState));
  return intentId === undefined ? undefined : sectionOf(intentId, services);
}

/** The intent a payload names (hosts that track intents send `intentId`), if any. */
const intentIdOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

async function sectionOf(
  intentId: string,
  services: Pick<Services, 'options' | 'projectDir' | 'projectState'>,
): Promise<IntentSection | undefined> {
  const options = services.options.intent;
  if (options === false) return undefined;
  const loaded = await loadIntent(intentId, services, options);
  if (loaded.summary === null) return undefined;
  return { id: intentId, text: loaded.summary, source: `${loaded.sources.join(' + ')} (hookwise intent show)` };
}

// ---------------------------------------------------------------------------------------------
// The preserved block

async function buildBlock(
  services: Services,
  payloadIntentId: unknown,
): Promise<{ block: PreservedBlock | undefined; problems: string[]; skipped: string[] }> {
  const problems: string[] = [];
  const skipped: string[] = [];
  let sections: Awaited<ReturnType<typeof collectCommandSections>>['sections'] = [];
  const commandOptions = services.options.commands;
  if (commandOptions !== false) {
    const commands: Array<{ name: string; args: string }> = (await listActiveCommands(services.state)).map(({ name, args }) => ({
      name,
      args,
    }));
    if (commandOptions.agileflow) {
      const agileflow = await readAgileflowCommands(services.projectDir, commandOptions.agileflowStatePath);
      if (agileflow.problem) problems.push(agileflow.problem);
      for (const command of agileflow.commands) {
        if (command.type === 'output-only') {
          skipped.push(command.name);
          continue;
        }
        // AgileFlow stores bare names (`babysit`, `story:list`); Claude Code runs them as /agileflow:….
        const name = command.name.startsWith('agileflow:') ? command.name : `agileflow:${displayCommandName(command.name)}`;
        commands.push({ name, args: '' });
      }
    }
    const collected = await collectCommandSections(commands, commandOptions.searchPath, {
      projectDir: services.projectDir,
      ...(services.options.homeDir ? { homeDir: services.options.homeDir } : {}),
    });
    sections = collected.sections;
    problems.push(...collected.problems);
    skipped.push(...collected.skipped.map((entry) => entry.name));
  }
  const intent = await intentSection(services, payloadIntentId);
  const block = buildPreservedBlock({
    commands: sections,
    ...(intent ? { intent } : {}),
    projectDir: services.projectDir,
    budgetChars: services.options.budgetChars,
  });
  return { block, problems, skipped };
}

/** What `compact:before` returns; stored so `compact:after` can hand the same block back. */
async function preserve(services: Services & { sessionId: string }, payloadIntentId: unknown) {
  const { block, problems, skipped } = await buildBlock(services, payloadIntentId);
  const commandOptions = services.options.commands;
  if (commandOptions !== false && commandOptions.agileflow) {
    await writeAgileflowPrecompactStamp(services.projectDir, commandOptions.agileflowStatePath, services.now).catch((error: unknown) =>
      problems.push((error as Error).message),
    );
  }
  await services.state.update<SessionRecord>((current) => {
    const { lastPreserved: _previous, ...rest } = current ?? {};
    return block ? { ...rest, lastPreserved: { text: block.text, labels: block.labels, at: services.now.toISOString() } } : rest;
  });
  for (const problem of problems) services.logger.warn(`${PLUGIN_NAME}: ${problem}`);
  await services.record({
    type: 'precompact:preserved',
    sessionId: services.sessionId,
    labels: block?.labels ?? [],
    chars: block?.text.length ?? 0,
    budgetChars: services.options.budgetChars,
    cut: block?.cut ?? [],
    skipped,
    problems,
  });
  return { block, problems };
}

// ---------------------------------------------------------------------------------------------
// Hooks

/**
 * How long after `compact:before` its block is handed back as is. AgileFlow settled on 600 s
 * because compactions with background tasks can take minutes; older blocks are rebuilt.
 */
const HANDBACK_MAX_AGE_MS = 600_000;

const on: HookMap<PrecompactOptions> = {
  'prompt:submit': async (payload, context) => {
    const options = context.options.commands;
    if (options === false || !options.fromPrompt) return;
    await guarded('registering a slash command', context, payload.sessionId, async () => {
      // Only a command the host reports it ran: a prompt that merely starts with `/x` may name a
      // command the host does not have (Claude Code then sends it to the model as text).
      const parsed = payload.command ? { name: payload.command.name.replace(/^\//, ''), args: payload.command.args } : undefined;
      if (!parsed) return;
      try {
        assertCommandName(parsed.name);
      } catch (error) {
        if (!UnsafeNameError.isInstance(error)) throw error;
        context.logger.warn(`${PLUGIN_NAME}: ${error.message}`);
        await context.record({
          type: 'precompact:command-refused',
          sessionId: payload.sessionId,
          name: parsed.name,
          reason: error.message,
        });
        return;
      }
      // Built-in commands (/compact, /clear, /model …) have no file: only file-backed commands become active.
      const lookup = await findCommandFile(parsed.name, options.searchPath, {
        projectDir: context.projectDir,
        ...(context.options.homeDir ? { homeDir: context.options.homeDir } : {}),
      });
      if (!lookup.found) {
        if (lookup.refused !== undefined) {
          context.logger.warn(`${PLUGIN_NAME}: ${lookup.refused}`);
          await context.record({
            type: 'precompact:command-refused',
            sessionId: payload.sessionId,
            name: parsed.name,
            reason: lookup.refused,
          });
        }
        return;
      }
      await activateCommand(context.state, parsed.name, parsed.args, { activatedAt: new Date(context.clock.now()), source: 'prompt' });
    });
  },

  'session:start': async (payload, context) => {
    if (context.options.commands === false) return;
    // resume and compact continue the same work; startup and clear begin new work.
    if (payload.source !== 'startup' && payload.source !== 'clear') return;
    await guarded('clearing active commands', context, payload.sessionId, () => clearActiveCommands(context.state));
  },

  // tool:after and llm:before run on nearly every event, mostly with no intent selected: they
  // catch their own failures (no closure per call) and read the selection straight from state.
  'tool:after': async (payload, context) => {
    const options = context.options.intent;
    if (options === false) return;
    try {
      const intentId = intentIdOf((payload as { intentId?: unknown }).intentId) ?? (await getSelectedIntent(context.projectState));
      if (intentId === undefined) return;
      await appendTraceEntry(
        context.projectState,
        intentId,
        {
          time: new Date(context.clock.now()).toISOString(),
          tool: payload.toolName,
          files: targetFilesOf(payload.input, context.projectDir),
          mutation: options.mutatingTools.includes(payload.toolName),
          ok: payload.ok,
        },
        options.traceLimit,
      );
    } catch (error) {
      await reportFailure('recording the intent trace', context, payload.sessionId, error);
    }
  },

  'llm:before': async (payload, context) => {
    if (context.options.intent === false) return;
    let section: IntentSection | undefined;
    try {
      // The hook context has what the summary needs (no services object per request).
      const intentId = intentIdOf(payload.intentId) ?? (await getSelectedIntent(context.projectState));
      if (intentId === undefined) return;
      section = await sectionOf(intentId, context);
    } catch (error) {
      await reportFailure('building the intent summary', context, payload.sessionId, error);
      return;
    }
    // `context`, not `value`: the host prepends it to the system prompt; the messages stay as they are.
    return section ? { context: section.text } : undefined;
  },

  'compact:before': async (payload, context) => {
    const result = await guarded('building the preserved block', context, payload.sessionId, () =>
      preserve({ ...servicesOf(context), sessionId: payload.sessionId }, (payload as { intentId?: unknown }).intentId),
    );
    if (!result) return;
    const notice = result.problems.length > 0 ? `hookwise precompact: ${result.problems.join('; ')}` : undefined;
    if (!result.block) return notice ? { notice } : undefined;
    return { context: result.block.text, preserved: result.block.labels, ...(notice ? { notice } : {}) };
  },

  'compact:after': async (payload, context) => {
    // The summarizer may have dropped the block: hand the same block back as fresh context.
    const text = await guarded('handing back the preserved block', context, payload.sessionId, async () => {
      const stored = (await context.state.read<SessionRecord>())?.lastPreserved;
      // A block from an earlier compaction (this one's compact:before never came) may name commands no longer active.
      const age = stored ? context.clock.now() - Date.parse(stored.at) : Number.POSITIVE_INFINITY;
      if (stored && typeof stored.text === 'string' && age >= 0 && age <= HANDBACK_MAX_AGE_MS) return stored.text;
      return (await buildBlock(servicesOf(context), (payload as { intentId?: unknown }).intentId)).block?.text;
    });
    return text ? { context: text } : undefined;
  },

  'phase:end': async (payload, context) => {
    const options = context.options.handoff;
    if (options === false) return;
    const summary = await guarded('summarising the hand-off', context, payload.sessionId, async () => {
      const remembered = (await context.state.read<SessionRecord>())?.handoff;
      const result = summarizeHandoff(
        {
          output: payload.output,
          ...(payload.request !== undefined ? { request: payload.request } : {}),
          ...(payload.taskId !== undefined ? { taskId: payload.taskId } : {}),
          ...(payload.phase !== undefined ? { phase: payload.phase } : {}),
          ...(remembered ? { remembered } : {}),
        },
        { maxTokens: options.maxTokens, maxCodeLines: options.maxCodeLines, tokenCounter: context.tokenCounter },
      );
      const { taskId, feature, specPath } = result.fields;
      if (taskId !== undefined || feature !== undefined || specPath !== undefined) {
        await context.state.update<SessionRecord>((current) => ({
          ...current,
          handoff: {
            ...current?.handoff,
            ...(taskId !== undefined ? { taskId } : {}),
            ...(feature !== undefined ? { feature } : {}),
            ...(specPath !== undefined ? { specPath } : {}),
          },
        }));
      }
      await context.record({
        type: 'precompact:handoff',
        sessionId: payload.sessionId,
        taskId: result.fields.taskId,
        phase: result.fields.phase,
        source: result.source,
        charsBefore: payload.output.length,
        tokensBefore: context.tokenCounter.count(payload.output),
        charsAfter: result.text.length,
        tokensAfter: result.tokens,
        dropped: result.dropped,
      });
      return result;
    });
    // The transform replaces the raw output: the orchestrator never holds it.
    return summary ? { value: summary.text } : undefined;
  },
};

function servicesOf(context: Omit<Services, 'now'> & { clock: { now(): number } }): Services {
  return {
    projectDir: context.projectDir,
    options: context.options,
    state: context.state,
    projectState: context.projectState,
    logger: context.logger,
    record: context.record,
    now: new Date(context.clock.now()),
  };
}

// ---------------------------------------------------------------------------------------------
// Commands (`hookwise command activate …`, `hookwise intent select …`)

function requireArgument(args: string[], what: string, usage: string): string {
  const value = args[0];
  if (value === undefined || value === '') throw new HookwiseError(`missing ${what}; usage: hookwise ${usage}`, { code: 'HW_USAGE' });
  return value;
}

function commandsEnabled(options: PrecompactOptions): CommandsOptions {
  if (options.commands === false)
    throw new HookwiseError('active commands are turned off in this project (commands: false)', { code: 'HW_DISABLED' });
  return options.commands;
}

function intentEnabled(options: PrecompactOptions): IntentOptions {
  if (options.intent === false)
    throw new HookwiseError('intent summaries are turned off in this project (intent: false)', { code: 'HW_DISABLED' });
  return options.intent;
}

const commands: Array<PluginCommand<PrecompactOptions>> = [
  {
    name: 'command activate',
    description: 'Mark a slash command active in the session, so its compact summary survives compaction',
    usage: '<name> [args…]',
    async run(args, context) {
      const options = commandsEnabled(context.options);
      const name = requireArgument(args, 'command name', 'command activate <name> [args…]').replace(/^\//, '');
      const active = await activateCommand(context.state, name, args.slice(1).join(' '), { activatedAt: new Date(context.clock.now()) });
      const lookup = await findCommandFile(name, options.searchPath, {
        projectDir: context.projectDir,
        ...(context.options.homeDir ? { homeDir: context.options.homeDir } : {}),
      });
      const note = lookup.found
        ? `found ${lookup.file}`
        : `warning: no file for /${displayCommandName(name)} on the search path yet; it will be reported at compaction`;
      return `/${displayCommandName(name)} is active (${note}).\nActive commands: ${active.map((entry) => `/${displayCommandName(entry.name)}`).join(', ')}`;
    },
  },
  {
    name: 'command deactivate',
    description: 'Stop preserving a slash command',
    usage: '<name>',
    async run(args, context) {
      commandsEnabled(context.options);
      const name = requireArgument(args, 'command name', 'command deactivate <name>').replace(/^\//, '');
      const removed = await deactivateCommand(context.state, name);
      return removed ? `/${displayCommandName(name)} is no longer active.` : `/${displayCommandName(name)} was not active.`;
    },
  },
  {
    name: 'command list',
    description: 'List the slash commands whose summaries survive compaction',
    async run(_args, context) {
      const options = commandsEnabled(context.options);
      const active = await listActiveCommands(context.state);
      if (active.length === 0) return `No active commands in session ${context.sessionId}.`;
      const lines = [];
      for (const entry of active) {
        const lookup = await findCommandFile(entry.name, options.searchPath, {
          projectDir: context.projectDir,
          ...(context.options.homeDir ? { homeDir: context.options.homeDir } : {}),
        });
        const where = lookup.found ? lookup.file : (lookup.refused ?? 'no file found');
        lines.push(
          `/${displayCommandName(entry.name)}${entry.args ? ` ${entry.args}` : ''} — since ${entry.activatedAt} (${entry.source}) — ${where}`,
        );
      }
      return lines.join('\n');
    },
  },
  {
    name: 'intent select',
    description: "Select the project's active intent (its recent history is summarised before model requests and compaction)",
    usage: '<id>',
    async run(args, context) {
      intentEnabled(context.options);
      const id = requireArgument(args, 'intent id', 'intent select <id>');
      await selectIntent(context.projectState, id, { selectedAt: new Date(context.clock.now()) });
      return `Active intent: ${id}`;
    },
  },
  {
    name: 'intent clear',
    description: 'Clear the active intent',
    async run(_args, context) {
      intentEnabled(context.options);
      await clearIntent(context.projectState);
      return 'No active intent.';
    },
  },
  {
    name: 'intent show',
    description: 'Show the active intent and its summary',
    usage: '[id]',
    async run(args, context) {
      const options = intentEnabled(context.options);
      const id = args[0] ?? (await getSelectedIntent(context.projectState));
      if (id === undefined) return 'No active intent. Select one with: hookwise intent select <id>';
      const loaded = await loadIntent(id, context, options);
      if (loaded.summary === null) return `Intent ${id}: ${loaded.history.length} entries; a summary starts at ${options.threshold}.`;
      return loaded.summary;
    },
  },
];

/**
 * The plugin: `precompact(options)` in `hookwise.config.*`. Its hooks keep what must survive
 * compaction: active command summaries, the active intent's summary, and bounded hand-offs.
 */
export const precompact = definePlugin({
  meta: { name: PLUGIN_NAME, version: PLUGIN_VERSION },
  options: pluginOptionsSchema,
  on,
  commands,
});
