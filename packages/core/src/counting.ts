/**
 * `@hookwise/core/counting`: token figures of message parts, counted once per part object and
 * shared by whoever counts the same parts with the same counter in one process — a host that
 * measures a history (the report) and a plugin that counted those parts before (hook-prune).
 * Kept off the main entry: plugin authors count with `estimateMessageTokens` and their
 * context's `tokenCounter`.
 */
export { countPartTokens, forgetPartTokens, partTokens, rememberPartTokens } from './messages/estimate.js';
