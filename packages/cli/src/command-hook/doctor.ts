import type { HostDoctorContext } from '../host-setup.js';
import { buildRunBundle, bundlePathOf, isManifestFresh, readManifest, recentWriteFailure } from './bundle.js';

/**
 * `hookwise doctor`'s check of a command-hook host's run bundle: what hook calls actually do,
 * which the manifest records (hook calls read it too), then a rebuild when it is not fresh, so
 * doctor also fixes it. Warnings only: the unbundled fallback works, only slower.
 */
export async function checkRunBundle(context: HostDoctorContext, runtime: string): Promise<void> {
  const { projectDir, configFile, ok, warn } = context;
  if (!configFile) return;
  const manifest = readManifest(projectDir);
  const fresh = manifest !== undefined && isManifestFresh(manifest, { configFile, runtime });
  if (fresh && manifest.bundle && bundlePathOf(projectDir, manifest)) {
    ok(`hook calls use the cached run bundle (.hookwise/cache/${manifest.bundle})`);
    return;
  }
  // Only lasting causes are recorded (a race with another build is not): calls stop building until a watched file changes.
  if (fresh && manifest.failed)
    warn(
      `hook calls use the unbundled path (about 4× slower to start): the last build failed: ${manifest.failed} (a lasting cause: calls do not build again until the config or a package it uses changes)`,
    );
  else if (recentWriteFailure(projectDir))
    warn(
      'the last build could not be written (a full, read-only or forbidden disk): hook calls use the unbundled path and try again after a minute',
    );
  else if (fresh && manifest.bundle) warn(`the manifest names .hookwise/cache/${manifest.bundle}, which is missing or not a regular file`);
  else
    warn(
      manifest
        ? 'the run bundle is out of date (a watched file changed); the next hook call rebuilds it'
        : 'no run bundle has been built yet',
    );
  const built = await buildRunBundle({ projectDir, configFile, runtime });
  if (built.ok) ok(`rebuilt the run bundle: hook calls now use .hookwise/cache/${built.manifest.bundle}`);
  else warn(`rebuilding the run bundle failed, hook calls keep the unbundled path: ${built.reason}`);
}
