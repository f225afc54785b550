import { fileURLToPath } from 'node:url';

/**
 * Core's ESM dist bundles write-file-atomic, which seeds its temp-file names with the CommonJS
 * `__filename`; in an ES module that is a ReferenceError on the first state write. Until core
 * defines it in its own banner, the CLI entry points (processes hookwise owns) give the
 * process one. Any string works: it only seeds a hash. The run bundle is CommonJS and has it.
 */
export function ensureCommonJsFilename(): void {
  const scope = globalThis as { __filename?: string };
  scope.__filename ??= fileURLToPath(import.meta.url);
}
