// The polyfill is imported here, in the module that needs it, not in a barrel: bundlers
// honouring `sideEffects` may drop a bare import from a re-exporting index.
import 'reflect-metadata';

export { container as rootContainer, inject, injectable, injectAll, Lifecycle, delay, instanceCachingFactory } from 'tsyringe';
export type { DependencyContainer, InjectionToken } from 'tsyringe';
