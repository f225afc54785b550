import type { DependencyContainer } from 'tsyringe';
import { diLoaded, requireDi } from '../di-runtime.js';
import type { HookContext, HookOrder } from '../hooks.js';
import type { PluginInstance, PluginMeta } from '../plugin.js';
import type { PointName } from '../points.js';
import { createSessionState } from '../state/file-state-store.js';
import type { SessionState, StateStore } from '../state/types.js';
import { PLUGIN_META, PLUGIN_OPTIONS, SESSION_ID, SESSION_STATE } from '../tokens.js';

/** The session id of state shared by every session of a project. */
export const PROJECT_SCOPE = 'project';

/** A configured plugin with its options validated (or the config file's own hooks: no instance). */
export interface PreparedPlugin {
  instance: PluginInstance<any> | undefined;
  meta: PluginMeta;
  options: unknown;
}

export interface RegisteredHook {
  point: PointName;
  pluginName: string;
  hookName: string;
  order: HookOrder | undefined;
}

/** One hook on one point, ready to call. */
export interface PreparedHook extends RegisteredHook {
  plugin: PreparedPlugin;
  call: (scope: PluginScope, payload: unknown, context: HookContext) => unknown;
}

/**
 * A plugin's services for one session. Its container is made when first asked for: hooks
 * written as plain functions never touch it, and tsyringe's child containers cost a hook
 * process start-up time. A plugin with `@On` classes or a `register` function gets it at once,
 * so a `register` that throws still fails each of the plugin's hooks with its error.
 */
export class PluginScope {
  readonly state: SessionState;
  readonly projectState: SessionState;
  setupError?: unknown;
  private made: DependencyContainer | undefined;

  constructor(
    private readonly session: SessionScope,
    private readonly plugin: PreparedPlugin,
    stateStore: StateStore,
    sessionId: string,
  ) {
    this.state = createSessionState(stateStore, sessionId, plugin.meta.name);
    this.projectState = createSessionState(stateStore, PROJECT_SCOPE, plugin.meta.name);
    const definition = plugin.instance?.definition;
    if (definition?.register !== undefined || definition?.hooks?.some((entry) => typeof entry === 'function')) void this.container;
  }

  /** Whether a container can be made: DI is loaded, or the host gave the engine a container. */
  get hasContainer(): boolean {
    return this.made !== undefined || this.session.hasContainer;
  }

  get container(): DependencyContainer {
    if (this.made) return this.made;
    const container = this.session.container.createChildContainer();
    this.made = container;
    const plugin = this.plugin;
    container.register(PLUGIN_OPTIONS, { useValue: plugin.options });
    container.register(PLUGIN_META, { useValue: plugin.meta });
    container.register(SESSION_STATE, { useValue: this.state });
    for (const entry of plugin.instance?.definition.hooks ?? []) {
      if (typeof entry === 'function')
        container.register(entry, { useClass: entry }, { lifecycle: requireDi('a hook class').containerScoped });
    }
    try {
      plugin.instance?.definition.register?.(container, plugin.options);
    } catch (error) {
      this.setupError = error;
    }
    return container;
  }

  async dispose(): Promise<void> {
    await this.made?.dispose();
  }
}

/** A session's container (made on first use, see {@link PluginScope}) and its plugins' scopes. */
export class SessionScope {
  readonly plugins = new Map<PreparedPlugin, PluginScope>();
  private made: DependencyContainer | undefined;

  constructor(
    private readonly parent: () => DependencyContainer,
    private readonly sessionId: string,
    readonly hasContainer: boolean,
  ) {}

  get container(): DependencyContainer {
    if (this.made) return this.made;
    this.made = this.parent().createChildContainer();
    this.made.register(SESSION_ID, { useValue: this.sessionId });
    return this.made;
  }

  async dispose(): Promise<void> {
    for (const scope of this.plugins.values()) await scope.dispose();
    await this.made?.dispose();
  }
}

/** The sessions an engine has seen, each made on first use, and their plugins' scopes. */
export class SessionScopes {
  private readonly sessions = new Map<string, SessionScope>();

  constructor(
    private readonly engineContainer: () => DependencyContainer,
    private readonly stateStore: StateStore,
    /** Whether the host gave the engine a container of its own (else DI must be loaded for one). */
    private readonly hostContainer = false,
  ) {}

  session(sessionId: string): SessionScope {
    let existing = this.sessions.get(sessionId);
    if (!existing) {
      existing = new SessionScope(this.engineContainer, sessionId, this.hostContainer || diLoaded());
      this.sessions.set(sessionId, existing);
    }
    return existing;
  }

  plugin(sessionId: string, plugin: PreparedPlugin): PluginScope {
    const owner = this.session(sessionId);
    let scope = owner.plugins.get(plugin);
    if (!scope) {
      scope = new PluginScope(owner, plugin, this.stateStore, sessionId);
      owner.plugins.set(plugin, scope);
    }
    return scope;
  }

  async dispose(): Promise<void> {
    for (const owner of this.sessions.values()) await owner.dispose();
    this.sessions.clear();
  }
}
