import { statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HookwiseError } from '@hookwise/core';
import { buildReport } from './analyze.js';
import { createProgress, silentProgress } from './progress.js';
import { renderHtml } from './render-html.js';
import { renderText } from './render-text.js';

export interface ReportCommandOptions {
  /** The transcript (JSONL) to replay. */
  transcript: string;
  /** Print the report as JSON on stdout (the shape of `Report`). */
  json: boolean;
  /** Also write a self-contained HTML page here. */
  html?: string;
  /** The project whose hookwise config (and installed plugins) the replay uses. */
  projectDir: string;
  configFile?: string;
  /** The session's context window in tokens, when the user knows it (see `ReplayOptions.contextWindow`). */
  contextWindow?: number;
  /** Where the report goes. A plain function works too (no progress bar then: it cannot say it is a terminal). */
  stdout: NodeJS.WritableStream | ((text: string) => void);
  /** Where errors, the progress bar (terminals only) and, in `--json` mode, the HTML path go. */
  stderr: NodeJS.WritableStream | ((text: string) => void);
}

function write(target: NodeJS.WritableStream | ((text: string) => void), text: string): Promise<void> {
  if (typeof target === 'function') {
    target(text);
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    target.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * `hookwise report <transcript.jsonl> [--json] [--html <file>]`: replays a Claude Code
 * transcript through the project's plugins and prints what they would have done. Exit codes:
 * 0 done (malformed lines and failing hooks are part of the report, not failures); 1 the
 * transcript, the config or the HTML file could not be read or written.
 */
export async function reportCommand(options: ReportCommandOptions): Promise<number> {
  // Paths on the command line are relative to where the user is, like any CLI argument.
  const transcript = path.resolve(options.transcript);
  let bytes: number;
  try {
    // One-shot: a blocking stat costs microseconds, an asynchronous one a thread-pool round trip.
    const info = statSync(transcript);
    if (!info.isFile()) throw new Error('not a file');
    bytes = info.size;
  } catch (error) {
    await write(options.stderr, `hookwise report: cannot read the transcript ${transcript}: ${(error as Error).message}\n`);
    return 1;
  }

  const progress =
    typeof options.stderr === 'function' ? silentProgress : await createProgress(options.stderr, { bytes, file: transcript });
  let report;
  try {
    report = await buildReport(transcript, {
      projectDir: options.projectDir,
      ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
      onLine: (line) => progress.update(line),
      // Nothing to redraw meanwhile: the transcript is read with blocking calls, without a
      // thread-pool round trip per read (a bar redraws on a timer, which needs the event loop).
      ...(progress.drawn ? {} : { synchronousReads: true }),
    });
  } catch (error) {
    progress.stop();
    const message = HookwiseError.isInstance(error) ? error.message : (error as Error).message;
    await write(options.stderr, `hookwise report: ${message}\n`);
    return 1;
  }
  progress.stop();

  let htmlFile: string | undefined;
  if (options.html !== undefined) {
    htmlFile = path.resolve(options.html);
    try {
      await mkdir(path.dirname(htmlFile), { recursive: true });
      await writeFile(htmlFile, renderHtml(report));
    } catch (error) {
      await write(options.stderr, `hookwise report: cannot write ${htmlFile}: ${(error as Error).message}\n`);
      return 1;
    }
  }

  if (options.json) {
    await write(options.stdout, `${JSON.stringify(report, null, 2)}\n`);
    if (htmlFile) await write(options.stderr, `HTML report: ${htmlFile}\n`);
  } else {
    await write(options.stdout, renderText(report, htmlFile ? { htmlFile } : {}));
  }
  return 0;
}
