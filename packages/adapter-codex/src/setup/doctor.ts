import { existsSync } from 'node:fs';
import type { HostDoctorContext } from '@hookwise/cli';
import { checkRunBundle } from '@hookwise/cli/command-hook';
import { hookwiseEventsIn, missingCommandFile, type HookSettings } from '@hookwise/core/command-hook';
import { EVENT_POINTS, type MappedEvent } from '../binding/events.js';
import { runtimeFile } from '../hook-process/package-files.js';
import { codexHomeOf, readCodexTrust, readHooksFile } from './codex-files.js';

/** What hookwise cannot do under Codex 0.169.0, said once by doctor (and in the README's table). */
export const CODEX_LIMITS = [
  'no hook rewrites a Codex request: hook-prune (llm:before) cannot prune there; its tool-output pruning does nothing under Codex',
  'no hook replaces a tool output (PostToolUse `updatedMCPToolOutput` is rejected): outputs are counted, never trimmed',
  "Codex's compaction drops every earlier hook context: what must survive comes back through SessionStart(source compact)",
];

/**
 * Codex's part of `hookwise doctor`: `.codex/hooks.json` calls `hookwise run <Event>` once for each
 * event the plugins need, with a bin that exists; the trust Codex needs (the project, then the
 * hooks); the run bundle; and what Codex does not let hookwise do.
 */
export async function checkCodexSetup(context: HostDoctorContext): Promise<void> {
  const { projectDir, ok, problem, warn } = context;
  const needed = new Map<MappedEvent, string[]>();
  for (const [point, plugins] of context.pointsInUse)
    for (const event of Object.keys(EVENT_POINTS) as MappedEvent[])
      if ((EVENT_POINTS[event] as readonly string[]).includes(point))
        needed.set(event, [...new Set([...(needed.get(event) ?? []), ...plugins.map((plugin) => `${plugin} (${point})`)])]);

  const read = readHooksFile(projectDir);
  if (!read.ok) problem(read.message);
  const registered = hookwiseEventsIn(read.ok ? (read.value as HookSettings) : undefined);
  for (const [event, plugins] of needed) {
    const commands = registered.get(event);
    if (!commands)
      problem(
        `.codex/hooks.json does not call \`hookwise run ${event}\`, which ${plugins.join(', ')} need; run \`hookwise init --host codex\``,
      );
    else if (commands.length > 1)
      problem(
        `\`hookwise run ${event}\` is in .codex/hooks.json ${commands.length} times; each call would run the plugins again — keep one`,
      );
    else {
      const missing = missingCommandFile(commands[0]!, {}, existsSync);
      if (missing) problem(`the ${event} hook runs ${missing}, which does not exist; run \`hookwise init --host codex\` again`);
    }
  }
  if (needed.size > 0 && [...needed.keys()].every((event) => registered.get(event)?.length === 1))
    ok(`.codex/hooks.json calls hookwise for ${[...needed.keys()].join(', ')}`);

  const codexHome = codexHomeOf(process.env, context.home);
  const trust = readCodexTrust(projectDir, codexHome);
  if (trust.projectTrusted) ok(`Codex trusts the project (${trust.configFile})`);
  else
    problem(
      `Codex loads .codex/hooks.json only in a trusted project: add \`[projects."${projectDir}"]\` with \`trust_level = "trusted"\` to ${codexHome}/config.toml (or accept the trust prompt when \`codex\` starts here)`,
    );
  if (registered.size > 0 && trust.trustedHooks >= registered.size) ok('the hooks carry a trusted hash in the Codex config');
  else if (registered.size > 0)
    warn(
      `Codex runs a hook only once it is trusted, and \`codex exec\` skips untrusted hooks silently: start \`codex\` here and approve hookwise's ${registered.size} hooks in the hook review (or /hooks); again after init changes them. Automation that vets its hooks can pass \`--dangerously-bypass-hook-trust\`.`,
    );
  for (const limit of CODEX_LIMITS) warn(`under Codex: ${limit}`);
  await checkRunBundle(context, runtimeFile());
}
