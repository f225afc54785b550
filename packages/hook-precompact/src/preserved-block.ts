import path from 'node:path';
import { commandKey, displayCommandName, findCommandFile, type CommandFolder } from './command-files.js';
import { cutWithMarker, extractCompactSummary, readFrontMatterType } from './compact-summary.js';
import type { ActiveCommand } from './active-commands.js';

/** One active command whose summary was found. */
export interface CommandSection {
  /** Shown as `/<name>`. */
  name: string;
  args: string;
  file: string;
  summary: string;
}

export interface CollectedCommands {
  sections: CommandSection[];
  /** `type: output-only` commands: active, but re-running them after compaction is the bug AgileFlow hit, so no summary. */
  skipped: Array<{ name: string; file: string }>;
  /** Missing files, missing markers, refused names: reported, never fatal. */
  problems: string[];
}

/**
 * Looks up each active command on the search path and extracts its summary. Commands are
 * de-duplicated by name (`story/list` = `story:list`) and by file, so `/agileflow:babysit`
 * registered by hookwise and `babysit` from AgileFlow's state give one section.
 */
export async function collectCommandSections(
  commands: ReadonlyArray<Pick<ActiveCommand, 'name' | 'args'>>,
  folders: readonly CommandFolder[],
  options: { projectDir: string; homeDir?: string },
): Promise<CollectedCommands> {
  const result: CollectedCommands = { sections: [], skipped: [], problems: [] };
  const seenNames = new Set<string>();
  const seenFiles = new Set<string>();
  for (const command of commands) {
    const key = commandKey(command.name);
    if (seenNames.has(key)) continue;
    seenNames.add(key);
    let lookup;
    try {
      lookup = await findCommandFile(command.name, folders, options);
    } catch (error) {
      result.problems.push(`/${displayCommandName(command.name)}: ${(error as Error).message}`);
      continue;
    }
    if (!lookup.found) {
      result.problems.push(
        lookup.refused !== undefined
          ? `/${displayCommandName(command.name)}: ${lookup.refused}`
          : `/${displayCommandName(command.name)}: no command file (searched ${lookup.searched.join(', ')})`,
      );
      continue;
    }
    if (seenFiles.has(lookup.file)) continue;
    seenFiles.add(lookup.file);
    if (readFrontMatterType(lookup.markdown) === 'output-only') {
      result.skipped.push({ name: command.name, file: lookup.file });
      continue;
    }
    const summary = extractCompactSummary(lookup.markdown);
    if (summary === null) {
      result.problems.push(
        `/${displayCommandName(command.name)}: ${lookup.file} has no <!-- COMPACT_SUMMARY_START --> … <!-- COMPACT_SUMMARY_END --> section`,
      );
      continue;
    }
    result.sections.push({ name: displayCommandName(command.name), args: command.args, file: lookup.file, summary });
  }
  return result;
}

export interface IntentSection {
  id: string;
  /** The whole intent summary, heading included. */
  text: string;
  /** Where the agent can see the full history (shown when the summary is cut). */
  source: string;
}

export interface PreservedBlock {
  text: string;
  /** `/babysit`, `intent REQ-…`: what survived, for post-compaction notices. */
  labels: string[];
  /** Sections that had to be cut to fit the budget. */
  cut: string[];
}

export const PRESERVED_HEADER =
  'HOOKWISE — CONTEXT TO PRESERVE THROUGH COMPACTION\n' +
  'Carry the sections below into the summary unchanged: they are the rules of the commands still active in this session and the recent history of the active intent.';

/**
 * Joins command sections and the intent summary under one header, at most `budgetChars`
 * characters in total. When the whole does not fit, the space is shared out so that short
 * sections stay whole and only the long ones are cut (each with a visible marker naming the
 * file that holds the full text).
 */
export function buildPreservedBlock(input: {
  commands: readonly CommandSection[];
  intent?: IntentSection;
  projectDir: string;
  budgetChars: number;
}): PreservedBlock | undefined {
  const parts: Array<{ head: string; body: string; source: string; label: string }> = [];
  for (const section of input.commands) {
    const head = [
      `## ACTIVE COMMAND: /${section.name}`,
      ...(section.args ? [`Arguments: ${section.args}`] : []),
      `Source: ${shownPath(section.file, input.projectDir)}`,
    ].join('\n');
    parts.push({ head, body: section.summary, source: shownPath(section.file, input.projectDir), label: `/${section.name}` });
  }
  if (input.intent) parts.push({ head: '', body: input.intent.text, source: input.intent.source, label: `intent ${input.intent.id}` });
  if (parts.length === 0) return undefined;

  const assemble = (bodies: string[]) =>
    [PRESERVED_HEADER, ...parts.map((part, index) => (part.head ? `${part.head}\n\n${bodies[index]}` : bodies[index]!))].join('\n\n');
  const full = parts.map((part) => part.body);
  const whole = assemble(full);
  if (whole.length <= input.budgetChars) return { text: whole, labels: parts.map((part) => part.label), cut: [] };

  const fixed = assemble(parts.map(() => '')).length;
  const allotments = shareOut(
    full.map((body) => body.length),
    Math.max(0, input.budgetChars - fixed),
  );
  const cut: string[] = [];
  const bodies = parts.map((part, index) => {
    const allotment = allotments[index]!;
    if (part.body.length <= allotment) return part.body;
    cut.push(part.label);
    return cutWithMarker(part.body, allotment, part.source);
  });
  let text = assemble(bodies);
  // Only reachable when the headings alone outgrow the budget (dozens of commands): never exceed it.
  if (text.length > input.budgetChars) text = text.slice(0, input.budgetChars);
  return { text, labels: parts.map((part) => part.label), cut };
}

/** Water-filling: the shortest sections get what they need, the rest share what remains equally. */
export function shareOut(lengths: readonly number[], available: number): number[] {
  const order = lengths.map((_length, index) => index).sort((left, right) => lengths[left]! - lengths[right]!);
  const result = new Array<number>(lengths.length).fill(0);
  let remaining = available;
  let left = lengths.length;
  for (const index of order) {
    const share = Math.floor(remaining / left);
    const given = Math.min(lengths[index]!, share);
    result[index] = given;
    remaining -= given;
    left--;
  }
  return result;
}

function shownPath(file: string, projectDir: string): string {
  const relative = path.relative(projectDir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
