import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { countLines, createProgress, PROGRESS_MIN_BYTES } from './progress.js';
import { bigSession, independentFigures } from './test-support.js';

function terminal(isTTY: boolean): { stream: PassThrough; text: () => string } {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

describe('the progress bar', () => {
  it('counts the lines of a transcript', async () => {
    expect(await countLines(bigSession)).toBe(independentFigures(bigSession).lines);
  });

  it('draws on a terminal for a big transcript, and clears itself', async () => {
    const { stream, text } = terminal(true);
    const progress = await createProgress(stream, { bytes: PROGRESS_MIN_BYTES * 2, file: bigSession });
    // A bar redraws on a timer: the report then reads asynchronously, giving the event loop turns.
    expect(progress.drawn).toBe(true);
    progress.update(1200);
    progress.stop();
    expect(text()).toMatch(/replaying/);
    expect(text()).toMatch(/1200\/2385|50%/);
  });

  it('stays silent when stderr is not a terminal or the transcript is small', async () => {
    const piped = terminal(false);
    const small = terminal(true);
    for (const [target, bytes] of [
      [piped, PROGRESS_MIN_BYTES * 2],
      [small, 10_000],
    ] as const) {
      const progress = await createProgress(target.stream, { bytes, file: bigSession });
      expect(progress.drawn).toBe(false);
      progress.update(100);
      progress.stop();
      expect(target.text()).toBe('');
    }
  });
});
