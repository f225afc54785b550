import type { HostSetup } from '@hookwise/cli';
import { checkPiExtension, extensionSpec, installedPiExtension, mergePiExtension, PI_PACKAGE, readPiSettings } from './pi-settings.js';

/**
 * What `hookwise` (@hookwise/cli) does for pi; package.json's `"hookwise"` field points the CLI
 * here. pi loads hookwise in its own process, so there is nothing to build.
 */
const setup: HostSetup = {
  host: 'pi',
  describe: 'pi: the installed @hookwise/adapter-pi as an extension in .pi/settings.json',
  async init({ projectDir, relative }) {
    const folder = installedPiExtension(projectDir);
    if (!folder)
      return { ok: false, message: `${PI_PACKAGE} is not installed in ${projectDir}; run \`npm install -D ${PI_PACKAGE}\` first` };
    const read = readPiSettings(projectDir);
    if (!read.ok) return { ok: false, message: read.message };
    const spec = extensionSpec(read.file, folder);
    const merged = mergePiExtension(read.value, spec);
    if (!merged.changed) return { ok: true, files: [] };
    return {
      ok: true,
      files: [
        {
          file: read.file,
          before: read.text,
          after: `${JSON.stringify(merged.settings, null, 2)}\n`,
          summary: `${read.text === undefined ? 'write' : 'update'} ${relative(read.file)}: pi loads hookwise from ${spec}`,
          backup: read.text !== undefined,
        },
      ],
    };
  },
  async doctor({ projectDir, ok, problem }) {
    const checked = checkPiExtension(projectDir);
    for (const line of checked.ok) ok(line);
    for (const line of checked.problems) problem(line);
  },
};

export default setup;
