import type { DependencyContainer } from 'tsyringe';
import { ConfigError } from './errors.js';

/** What the engine needs of tsyringe. */
export interface DiRuntime {
  rootContainer: DependencyContainer;
  /** tsyringe's `Lifecycle.ContainerScoped`: one hook-class instance per plugin container. */
  containerScoped: number;
}

// `@hookwise/core/di` puts its tsyringe here when a plugin imports it, so tsyringe and
// reflect-metadata load only for plugins that use DI classes. A `Symbol.for` slot on
// globalThis: a DI plugin that resolved another copy of core still meets this engine, and the
// first copy loaded keeps the slot (the container whose registrations the engine uses).
const slot = Symbol.for('hookwise.di');
type Slot = { [slot]?: DiRuntime };

export function provideDi(runtime: DiRuntime): void {
  (globalThis as Slot)[slot] ??= runtime;
}

/** Whether `@hookwise/core/di` has been loaded (a hook's context then carries `container`). */
export function diLoaded(): boolean {
  return (globalThis as Slot)[slot] !== undefined;
}

/** The DI runtime, or a ConfigError saying what needed it and how to load it. */
export function requireDi(what: string): DiRuntime {
  const runtime = (globalThis as Slot)[slot];
  if (runtime) return runtime;
  throw new ConfigError(
    `${what} needs dependency injection, which is not loaded: import inject, injectable, On and TOKENS from "@hookwise/core/di" in the module that declares the hook class or service`,
  );
}
