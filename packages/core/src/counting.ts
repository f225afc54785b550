/**
 * `@hookwise/core/counting`: token figures of message parts, counted once per part object and
 * shared by whoever counts the same parts with the same counter in one process — a host that
 * measures a history (the report) and a plugin that counted those parts before (hook-prune).
 * Kept off the main entry: plugin authors count with `estimateMessageTokens` and their
 * context's `tokenCounter`.
 */
export { countPartTokens, forgetPartTokens, partTokens, rememberPartTokens } from './messages/estimate.js';
export { CACHE_READ_PRICE, CACHE_WRITE_PRICES, CacheMeter, cacheCost } from './messages/cache-cost.js';
export type { CacheFigures, CacheLifetime } from './messages/cache-cost.js';
export { EDIT_TEXT_MIN_CHARS, EditChecker, editedTexts } from './messages/lost-edits.js';
export type { EditCheck } from './messages/lost-edits.js';
