/**
 * One name per file, whatever the tool or the shell called it. Every keep rule compares files
 * by this key: a session recorded on Windows names one file `D:\repo\src\x.js`,
 * `d:/repo/src/x.js`, `/d/repo/src/x.js` (Git Bash) and `src\x.js`; a shell command names it
 * relative to its working directory (`cd repo && sed -n … src/x.js`).
 *
 * The key: `/` separators, `.` and `..` resolved, a Windows path lower-cased with its drive
 * letter (`d:/repo/src/x.js`), a relative path joined to the working directory. When the host
 * does not say the session's working directory, it is learned from the session itself: the
 * first relative path that ends an absolute one already seen gives it (`src/x.js` after
 * `/repo/src/x.js` → `/repo`). Until then a relative path keys as itself, normalised.
 */
export class FileIdentity {
  private workingDirectory: string | undefined;
  /** Whether a Windows path was seen: then `/d/…` is drive D and every key is lower-cased. */
  private windows = false;
  /** Absolute keys seen while the working directory is unknown, to learn it from (bounded). */
  private readonly absolutes: string[] = [];

  constructor(workingDirectory?: string) {
    if (workingDirectory !== undefined && workingDirectory !== '') this.setWorkingDirectory(workingDirectory);
  }

  /** The working directory as a key (undefined while unknown). */
  get directory(): string | undefined {
    return this.workingDirectory;
  }

  setWorkingDirectory(directory: string): void {
    const key = this.absoluteKey(directory);
    if (key !== undefined) this.workingDirectory = key;
  }

  /** `file` as a placeholder names it: relative to the working directory when under it, else as given. */
  display(file: string): string {
    const directory = this.workingDirectory;
    if (directory === undefined || !isAbsoluteKey(this.key(file))) return file;
    const key = this.key(file);
    const prefix = directory.endsWith('/') ? directory : `${directory}/`;
    return key.startsWith(prefix) ? key.slice(prefix.length) : file;
  }

  /** The key of `file`, a relative one resolved against `base` (itself a path, relative to the working directory) when given. */
  key(file: string, base?: string): string {
    const absolute = this.absoluteKey(file);
    if (absolute !== undefined) {
      if (this.workingDirectory === undefined && this.absolutes.length < MAX_REMEMBERED) this.absolutes.push(absolute);
      return absolute;
    }
    const relative = normalise(split(file), false);
    const baseKey = base === undefined ? undefined : this.key(base);
    if (baseKey !== undefined && isAbsoluteKey(baseKey)) return join(baseKey, relative);
    const joined = baseKey === undefined ? relative : join(baseKey, relative);
    const directory = this.workingDirectory ?? this.learn(joined);
    const key = directory === undefined ? joined : join(directory, joined);
    return this.windows ? key.toLowerCase() : key;
  }

  /** The key of an absolute path, or undefined for a relative one. */
  private absoluteKey(file: string): string | undefined {
    const text = file.trim();
    const drive = /^([A-Za-z]):(?:[\\/]|$)/.exec(text);
    if (drive !== null) {
      this.windows = true;
      return `${drive[1]!.toLowerCase()}:/${normalise(split(text.slice(2)), true)}`.toLowerCase();
    }
    if (text.startsWith('\\\\')) {
      this.windows = true;
      return `//${normalise(split(text.slice(2)), true)}`.toLowerCase();
    }
    if (text.includes('\\') && !text.startsWith('/')) this.windows = true;
    if (!text.startsWith('/') && !text.startsWith('\\')) return undefined;
    // Git Bash and MSYS name drive D `/d/…` once the session is known to run on Windows.
    const gitBash = this.windows ? /^\/([A-Za-z])(?:\/|$)/.exec(text) : null;
    if (gitBash !== null) return `${gitBash[1]!.toLowerCase()}:/${normalise(split(text.slice(2)), true)}`.toLowerCase();
    const key = `/${normalise(split(text), true)}`;
    return this.windows ? key.toLowerCase() : key;
  }

  /** The working directory a relative key implies: the rest of the one absolute key seen that ends with it. */
  private learn(relative: string): string | undefined {
    if (relative === '' || relative.startsWith('..')) return undefined;
    const suffix = `/${this.windows ? relative.toLowerCase() : relative}`;
    let found: string | undefined;
    for (const absolute of this.absolutes) {
      if (!absolute.endsWith(suffix)) continue;
      const directory = absolute.slice(0, absolute.length - suffix.length) || '/';
      if (found !== undefined && found !== directory) return undefined;
      found = directory;
    }
    if (found !== undefined) {
      this.workingDirectory = found;
      this.absolutes.length = 0;
    }
    return found;
  }
}

const MAX_REMEMBERED = 512;

function split(path: string): string[] {
  return path.split(/[\\/]+/);
}

function isAbsoluteKey(key: string): boolean {
  return key.startsWith('/') || /^[a-z]:\//.test(key);
}

/** Segments without `.`, `..` resolved; above the root (`absolute`) a `..` is dropped, in a relative path it stays. */
function normalise(segments: readonly string[], absolute: boolean): string {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(segment);
  }
  return out.join('/');
}

function join(directory: string, relative: string): string {
  if (relative === '') return directory;
  const root = /^(?:[a-z]:\/|\/\/|\/)/.exec(directory)?.[0] ?? '';
  const combined = normalise(split(`${directory.slice(root.length)}/${relative}`), root !== '');
  return `${root}${combined}`;
}
