/**
 * `@hookwise/core/command-hook`: the kit a command-hook host (Claude Code, Codex CLI, Gemini
 * CLI: one process per event, JSON on stdin and stdout) is written on. It owns the hook process
 * — stdin, the project, the engine, the whole call's deadline, the guard on synchronous hooks,
 * fail-open, writing the one result — and the adapter supplies a {@link CommandHookHost}: its
 * events, its stdin fields and its output format.
 */
export * from './command-hook/index.js';
export { SyncGuard, threadClock } from './cpu-deadline.js';
export type { SyncUsage, ThreadClock } from './cpu-deadline.js';
