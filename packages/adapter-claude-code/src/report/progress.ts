import { open } from 'node:fs/promises';

/** Transcripts smaller than this replay too fast for a bar to be worth drawing. */
export const PROGRESS_MIN_BYTES = 1024 * 1024;

export interface Progress {
  update(line: number): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

/** Lines in a file, counted on raw bytes (a few ms for 3 MB), so the bar knows its end. */
export async function countLines(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let lines = 0;
    let last = 0x0a;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      let index = -1;
      while ((index = buffer.indexOf(0x0a, index + 1)) !== -1 && index < bytesRead) lines++;
      last = buffer[bytesRead - 1]!;
    }
    return last === 0x0a ? lines : lines + 1;
  } finally {
    await handle.close();
  }
}

interface CliProgressModule {
  SingleBar: new (
    options: Record<string, unknown>,
    preset?: unknown,
  ) => { start(total: number, value: number): void; update(value: number): void; stop(): void };
  Presets: Record<string, unknown>;
}

/**
 * A progress bar on `stream` when it is a terminal and the file is big; otherwise nothing.
 * Uses `cli-progress` when it is installed, else a one-line bar of its own. Never writes to
 * stdout (that is where `--json` goes).
 */
export async function createProgress(stream: NodeJS.WritableStream, options: { bytes: number; file: string }): Promise<Progress> {
  if ((stream as { isTTY?: boolean }).isTTY !== true || options.bytes < PROGRESS_MIN_BYTES) return silent;
  const total = await countLines(options.file).catch(() => 0);
  if (total === 0) return silent;
  let library: CliProgressModule | undefined;
  try {
    // Optional: the report works without it.
    const name = 'cli-progress';
    const module = (await import(name)) as { default?: CliProgressModule } & Partial<CliProgressModule>;
    library = module.SingleBar ? (module as CliProgressModule) : module.default;
  } catch {
    library = undefined;
  }
  if (library?.SingleBar) {
    const bar = new library.SingleBar(
      { stream, format: 'replaying {bar} {percentage}% | line {value}/{total}', hideCursor: true, clearOnComplete: true, fps: 20 },
      library.Presets['shades_classic'],
    );
    bar.start(total, 0);
    return { update: (line) => bar.update(Math.min(line, total)), stop: () => bar.stop() };
  }
  return ownBar(stream, total);
}

function ownBar(stream: NodeJS.WritableStream, total: number): Progress {
  const width = 30;
  let shown = -1;
  let lastDraw = 0;
  return {
    update(line) {
      const fraction = Math.min(1, line / total);
      const percent = Math.floor(fraction * 100);
      const now = Date.now();
      if (percent === shown || now - lastDraw < 50) return;
      shown = percent;
      lastDraw = now;
      const filled = Math.round(fraction * width);
      stream.write(`\rreplaying [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(percent).padStart(3)}% | line ${line}/${total}`);
    },
    stop() {
      if (shown !== -1) stream.write('\r\u001b[2K');
    },
  };
}
