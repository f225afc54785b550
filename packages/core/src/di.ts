/**
 * `@hookwise/core/di`: decorator-style hooks and injected services for plugins that want them.
 * Importing this loads tsyringe and reflect-metadata and hands the container to the engine
 * (di-runtime.ts); plugins written as plain functions never load either.
 */
// The polyfill is imported here, in the module that needs it, not in a barrel: bundlers
// honouring `sideEffects` may drop a bare import from a re-exporting index.
import 'reflect-metadata';
import { container, Lifecycle } from 'tsyringe';
import { provideDi } from './di-runtime.js';

provideDi({ rootContainer: container, containerScoped: Lifecycle.ContainerScoped });

export { inject, injectable } from 'tsyringe';
export type { DependencyContainer, InjectionToken } from 'tsyringe';
export { On } from './hooks.js';
export { TOKENS } from './tokens.js';
