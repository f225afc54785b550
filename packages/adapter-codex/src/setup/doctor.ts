import type { HostDoctorContext } from '@hookwise/cli';
import { checkHooksFile, checkRunBundle } from '@hookwise/cli/command-hook';
import { EVENT_POINTS } from '../binding/events.js';
import { files } from '../hook-process/package-files.js';
import { codexHomeOf, readCodexTrust, readHooksFile } from './codex-files.js';

/** What hookwise cannot do under Codex 0.169.0, said once by doctor (and in the README's table). */
export const CODEX_LIMITS = [
  'no hook rewrites a Codex request: llm:before never runs there, so nothing prunes the request',
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
  const registered = checkHooksFile(context, {
    read: readHooksFile(projectDir),
    label: '.codex/hooks.json',
    eventPoints: EVENT_POINTS,
    host: 'codex',
  });
  const codexHome = codexHomeOf(process.env, context.home);
  const trust = readCodexTrust(projectDir, codexHome);
  if (trust.root !== projectDir)
    warn(
      `the project is inside the git repository ${trust.root}: Codex takes that root as the project (its trust, its .codex/); run \`hookwise init --host codex\` there`,
    );
  if (trust.projectTrusted) ok(`Codex trusts the project (${trust.configFile})`);
  else
    problem(
      `Codex loads .codex/hooks.json only in a trusted project: add \`[projects."${trust.root}"]\` with \`trust_level = "trusted"\` to ${codexHome}/config.toml (or accept the trust prompt when \`codex\` starts here)`,
    );
  if (registered.size > 0 && trust.trustedHooks >= registered.size) ok('the hooks carry a trusted hash in the Codex config');
  else if (registered.size > 0)
    warn(
      `Codex runs a hook only once it is trusted, and \`codex exec\` skips untrusted hooks silently: start \`codex\` here and approve hookwise's ${registered.size} hooks in the hook review (or /hooks); again after init changes them. Automation that vets its hooks can pass \`--dangerously-bypass-hook-trust\`.`,
    );
  for (const limit of CODEX_LIMITS) warn(`under Codex: ${limit}`);
  if (context.configFile)
    await checkRunBundle({ projectDir, host: 'codex', configFile: context.configFile, runtime: files.runtime }, { ok, warn });
}
