// Hosts for several projects in one process — an editor with several folders open, an app that
// serves several projects: one `createHost` per project folder with hookwise configured, and a
// call routed to the innermost folder holding its working directory (a nested project's own
// config wins over the folder around it).
import path from 'node:path';
import { createHost, type Host, type HostOptions } from './create-host.js';
import type { HostSession } from './host-session.js';

export interface ProjectHosts<S extends object = object> {
  /**
   * Starts the host of `projectDir` and loads its config. Gives the host, or undefined when
   * hookwise is off there (no config; a broken one, which the host reports itself) or the folder
   * was removed or the set disposed meanwhile. A folder added again replaces its host.
   */
  add(projectDir: string, options: Omit<HostOptions<S>, 'projectDir'>): Promise<Host<S> | undefined>;
  /** Stops the host of `projectDir`, if any; resolves once its engine is closed. */
  remove(projectDir: string): Promise<void>;
  /** The host of exactly `projectDir`. */
  get(projectDir: string): Host<S> | undefined;
  /** The host of the innermost project folder holding `cwd`; undefined outside every one. */
  hostFor(cwd: string): Host<S> | undefined;
  /** A session some host has bookkeeping for (none is made). */
  findSession(sessionId: string): HostSession<S> | undefined;
  /** How many projects have hookwise on. */
  readonly size: number;
  /** Disposes every host; an `add` under way or later starts none. Resolves once engines are closed. */
  dispose(): Promise<void>;
}

const isInside = (target: string, root: string) =>
  target === root || target.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);

/** An empty set of project hosts: see {@link ProjectHosts}. */
export function createProjectHosts<S extends object = object>(): ProjectHosts<S> {
  const hosts = new Map<string, Host<S>>();
  // The latest `add` of each folder: a removal, or an add after it, makes an earlier one stand down.
  const starting = new Map<string, Host<S>>();
  let disposed = false;
  return {
    async add(projectDir, options) {
      const dir = path.resolve(projectDir);
      const host = createHost<S>({ ...options, projectDir: dir });
      starting.set(dir, host);
      const engine = await host.engine();
      const current = starting.get(dir) === host && !disposed;
      if (starting.get(dir) === host) starting.delete(dir);
      if (!engine || !current) {
        await host.dispose();
        return undefined;
      }
      const previous = hosts.get(dir);
      hosts.set(dir, host);
      await previous?.dispose();
      return host;
    },
    async remove(projectDir) {
      const dir = path.resolve(projectDir);
      starting.delete(dir);
      const host = hosts.get(dir);
      hosts.delete(dir);
      await host?.dispose(); // the kit's dispose never throws
    },
    get: (projectDir) => hosts.get(path.resolve(projectDir)),
    hostFor(cwd) {
      const target = path.resolve(cwd);
      let best: [string, Host<S>] | undefined;
      for (const [root, host] of hosts) if (isInside(target, root) && (!best || root.length > best[0].length)) best = [root, host];
      return best?.[1];
    },
    findSession(sessionId) {
      for (const host of hosts.values()) {
        const session = host.findSession(sessionId);
        if (session) return session;
      }
      return undefined;
    },
    get size() {
      return hosts.size;
    },
    async dispose() {
      disposed = true;
      starting.clear();
      const open = [...hosts.values()];
      hosts.clear();
      await Promise.all(open.map((host) => host.dispose()));
    },
  };
}
