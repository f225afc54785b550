import * as z from 'zod/mini';
import { DEFAULT_COMMAND_FOLDERS, type CommandFolder } from './command-files.js';

/**
 * Claude Code cuts hook output at 10,000 characters; the preserved block (command summaries and
 * intent summary together) stays well under it, leaving room for other plugins' output.
 */
export const DEFAULT_BUDGET_CHARS = 8_000;

export const DEFAULT_MUTATING_TOOLS: readonly string[] = [
  // Claude Code
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  // Roo Code / Cline
  'write_to_file',
  'apply_diff',
  'insert_content',
  'search_and_replace',
  'replace_in_file',
  'edit_file',
];

// The schemas are built on first use, not at import: building them is a noticeable part of a
// hook call's start, and a call whose options the run bundle validated never needs them.
function buildOptionsSchema() {
  const folderSchema = z.union([
    z.string().check(z.minLength(1)),
    z.strictObject({
      path: z.string().check(z.minLength(1)),
      namespace: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_.-]+$/))),
      extension: z.optional(z.string().check(z.regex(/^\.[A-Za-z0-9]+$/))),
    }),
  ]);

  const commandsSchema = z.strictObject({
    /** Folders searched for `<name>.md`, first match wins. Default: {@link DEFAULT_COMMAND_FOLDERS}. */
    searchPath: z.optional(z.array(folderSchema)),
    /** Register slash commands typed by the user (`prompt:submit`). Default true. */
    fromPrompt: z.optional(z.boolean()),
    /** Also read `active_commands` from AgileFlow's session-state.json, and leave its `last_precompact_at` handshake. Default false. */
    agileflow: z.optional(z.boolean()),
    /** AgileFlow's session state, relative to the project. */
    agileflowStatePath: z.optional(z.string().check(z.minLength(1))),
  });

  const intentSchema = z.strictObject({
    /** Entries the active intent needs before a summary is produced. Default 20 (the Roo fork's value; fires at exactly 20). */
    threshold: z.optional(z.number().check(z.int(), z.positive())),
    /** How many of the latest entries the summary covers. Default 20. */
    window: z.optional(z.number().check(z.int(), z.positive())),
    /** The Roo Code fork's JSONL ledger, relative to the project; `false` to read none. */
    ledgerPath: z.optional(z.union([z.string().check(z.minLength(1)), z.literal(false)])),
    /** Only the last this-many bytes of the ledger are read (it is append-only; the summary needs its tail). Default 4 MiB. */
    ledgerMaxBytes: z.optional(z.number().check(z.int(), z.positive())),
    /** hookwise's own trace keeps this many entries per intent. Default 50 (the Roo fork's history cap). */
    traceLimit: z.optional(z.number().check(z.int(), z.positive())),
    /** Tools whose calls change files; every other tool counts as a read. */
    mutatingTools: z.optional(z.array(z.string())),
  });

  const handoffSchema = z.strictObject({
    /** Largest hand-off summary, counted with the engine's token counter. Default 500. */
    maxTokens: z.optional(z.number().check(z.int(), z.positive())),
    /** Fenced code longer than this many lines is replaced by its path. Default 3. */
    maxCodeLines: z.optional(z.number().check(z.int(), z.nonnegative())),
  });

  return z.strictObject({
    /** Largest preserved block (commands + intent) in characters. Default 8,000. */
    budgetChars: z.optional(z.number().check(z.int(), z.minimum(1_000))),
    /** Stands in for `os.homedir()` when expanding `~` (tests, sandboxes). */
    homeDir: z.optional(z.string().check(z.minLength(1))),
    /** Active command summaries; `false` turns the concern off. */
    commands: z.optional(z.union([commandsSchema, z.literal(false)])),
    /** Intent summary; `false` turns the concern off. */
    intent: z.optional(z.union([intentSchema, z.literal(false)])),
    /** Phase hand-off summary; `false` turns the concern off. */
    handoff: z.optional(z.union([handoffSchema, z.literal(false)])),
  });
}

/** The options' zod schema (zod/mini), as the user writes them; a new one each call (the plugin's definition builds its own on first use). */
export const optionsSchema = buildOptionsSchema;

export type PrecompactOptionsInput = z.input<ReturnType<typeof optionsSchema>>;

export interface CommandsOptions {
  searchPath: CommandFolder[];
  fromPrompt: boolean;
  agileflow: boolean;
  agileflowStatePath: string;
}
export interface IntentOptions {
  threshold: number;
  window: number;
  ledgerPath: string | false;
  ledgerMaxBytes: number;
  traceLimit: number;
  mutatingTools: string[];
}
export interface HandoffOptions {
  maxTokens: number;
  maxCodeLines: number;
}
export interface PrecompactOptions {
  budgetChars: number;
  homeDir: string | undefined;
  commands: CommandsOptions | false;
  intent: IntentOptions | false;
  handoff: HandoffOptions | false;
}

export const DEFAULT_AGILEFLOW_STATE_PATH = 'docs/09-agents/session-state.json';
export const DEFAULT_LEDGER_PATH = '.orchestration/agent_trace.jsonl';

/** Fills in every default, so the rest of the package never deals with `undefined` options. */
export function resolveOptions(input: z.output<ReturnType<typeof optionsSchema>>): PrecompactOptions {
  const commands = input.commands;
  const intent = input.intent;
  const handoff = input.handoff;
  return {
    budgetChars: input.budgetChars ?? DEFAULT_BUDGET_CHARS,
    homeDir: input.homeDir,
    commands:
      commands === false
        ? false
        : {
            searchPath: (commands?.searchPath ?? DEFAULT_COMMAND_FOLDERS).map((folder) =>
              typeof folder === 'string' ? { path: folder } : { ...folder },
            ),
            fromPrompt: commands?.fromPrompt ?? true,
            agileflow: commands?.agileflow ?? false,
            agileflowStatePath: commands?.agileflowStatePath ?? DEFAULT_AGILEFLOW_STATE_PATH,
          },
    intent:
      intent === false
        ? false
        : {
            threshold: intent?.threshold ?? 20,
            window: intent?.window ?? 20,
            ledgerPath: intent?.ledgerPath ?? DEFAULT_LEDGER_PATH,
            ledgerMaxBytes: intent?.ledgerMaxBytes ?? 4 * 1024 * 1024,
            traceLimit: intent?.traceLimit ?? 50,
            mutatingTools: intent?.mutatingTools ?? [...DEFAULT_MUTATING_TOOLS],
          },
    handoff: handoff === false ? false : { maxTokens: handoff?.maxTokens ?? 500, maxCodeLines: handoff?.maxCodeLines ?? 3 },
  };
}

/** The schema the plugin hands to core (core calls it once, when options are first validated): validates, then resolves defaults. */
export const pluginOptionsSchema = () =>
  z.pipe(
    optionsSchema(),
    z.transform((input) => resolveOptions(input)),
  );
