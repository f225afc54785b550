import { readFileSync } from 'node:fs';
import { installedPackages } from '@hookwise/core/fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HostSetup } from './host-setup.js';

/** An installed host adapter, as its `package.json` declares it. */
export interface HostAdapter {
  host: string;
  packageName: string;
  /** Absolute path of its setup module. */
  setupFile: string;
}

/**
 * The host to use when several adapters are installed and `--host` names none: the host whose
 * setup hookwise documents first. Only a default; no logic depends on which host it is.
 */
export const DEFAULT_HOST = 'claude-code';

/**
 * The host adapters installed where the project resolves packages: every package in the
 * `node_modules` folders from `projectDir` upwards whose `package.json` has
 * `"hookwise": { "host": "<name>", "setup": "<file>" }`. The nearest wins a name found twice.
 * Only `package.json` files are read; nothing is imported.
 */
export function findHostAdapters(projectDir: string): HostAdapter[] {
  const found = new Map<string, HostAdapter>();
  for (const installed of installedPackages(projectDir)) {
    const adapter = hostAdapterAt(installed.dir);
    if (adapter && !found.has(adapter.host)) found.set(adapter.host, adapter);
  }
  return [...found.values()].sort((left, right) => (left.host < right.host ? -1 : left.host > right.host ? 1 : 0));
}

function hostAdapterAt(packageDir: string): HostAdapter | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(packageDir, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
  if (!text.includes('"hookwise"')) return undefined;
  try {
    const manifest = JSON.parse(text) as { name?: unknown; hookwise?: { host?: unknown; setup?: unknown } };
    const { host, setup } = manifest.hookwise ?? {};
    if (typeof manifest.name !== 'string' || typeof host !== 'string' || typeof setup !== 'string') return undefined;
    return { host, packageName: manifest.name, setupFile: path.resolve(packageDir, setup) };
  } catch {
    return undefined;
  }
}

export type HostChoice = { ok: true; adapter: HostAdapter; installed: readonly HostAdapter[] } | { ok: false; message: string };

/** `--host <name>` when given; else the only installed adapter, else the default host among several. */
export function chooseHost(installed: readonly HostAdapter[], wanted: string | undefined): HostChoice {
  const names = installed.map((adapter) => `${adapter.host} (${adapter.packageName})`).join(', ');
  if (wanted !== undefined) {
    const adapter = installed.find((candidate) => candidate.host === wanted);
    if (adapter) return { ok: true, adapter, installed };
    return {
      ok: false,
      message: `no host adapter for "${wanted}" is installed here; ${installed.length > 0 ? `installed: ${names}` : 'none is'} (npm install -D the adapter of your agent first)`,
    };
  }
  if (installed.length === 0)
    return {
      ok: false,
      message:
        'no hookwise host adapter is installed here (a package whose package.json declares "hookwise": { "host": … }); npm install -D the adapter of your agent first',
    };
  const adapter =
    installed.length === 1 ? installed[0]! : (installed.find((candidate) => candidate.host === DEFAULT_HOST) ?? installed[0]!);
  return { ok: true, adapter, installed };
}

/** Imports an adapter's setup module (its default export, or `setup`). */
export async function loadHostSetup(adapter: HostAdapter): Promise<HostSetup> {
  const module = (await import(pathToFileURL(adapter.setupFile).href)) as { default?: HostSetup; setup?: HostSetup };
  const setup = module.default ?? module.setup;
  if (!setup || typeof setup.init !== 'function' || typeof setup.doctor !== 'function')
    throw new Error(`${adapter.packageName}: ${adapter.setupFile} exports no host setup (an object with init and doctor)`);
  return setup;
}
