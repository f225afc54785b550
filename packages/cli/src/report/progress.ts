import { openRegularFile } from '@hookwise/core/fs';

/** Transcripts smaller than this replay too fast for a bar to be worth drawing. */
export const PROGRESS_MIN_BYTES = 1024 * 1024;

export interface Progress {
  update(line: number): void;
  stop(): void;
  /** Whether a bar is drawn: it redraws on a timer, so the replay must give the event loop turns (asynchronous reads). */
  readonly drawn: boolean;
}

export const silentProgress: Progress = { update() {}, stop() {}, drawn: false };

/** Lines in a file, counted on raw bytes (a few ms for 3 MB), so the bar knows its end. */
export async function countLines(file: string): Promise<number> {
  // A FIFO given as the transcript must not block the CLI for good.
  const handle = await openRegularFile(file);
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

/**
 * A progress bar (cli-progress) on `stream` when it is a terminal and the file is big;
 * otherwise nothing. Never writes to stdout (that is where `--json` goes). The library is
 * loaded only when a bar is drawn, so short replays and scripts never pay for it.
 */
export async function createProgress(stream: NodeJS.WritableStream, options: { bytes: number; file: string }): Promise<Progress> {
  if ((stream as { isTTY?: boolean }).isTTY !== true || options.bytes < PROGRESS_MIN_BYTES) return silentProgress;
  const total = await countLines(options.file).catch(() => 0);
  if (total === 0) return silentProgress;
  const { SingleBar, Presets } = (await import('cli-progress')).default;
  const bar = new SingleBar(
    { stream, format: 'replaying {bar} {percentage}% | line {value}/{total}', hideCursor: true, clearOnComplete: true, fps: 20 },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return { update: (line) => bar.update(Math.min(line, total)), stop: () => bar.stop(), drawn: true };
}
