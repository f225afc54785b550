// What the demo's live host sessions (OpenCode, pi) share: setting hookwise up in a project the
// way a user does, reading back what each request sent, and what hookwise logged.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import { contentText } from '../../../test-support/stand-in-chat-model.mjs';

const require = createRequire(import.meta.url);

export const format = (value) => Math.round(value).toLocaleString('en-US');

/**
 * A fresh demo project under `root` (emptied first): `files` (paths relative to the project, with
 * their text) and a `hookwise.config.json` listing `plugins`. Gives the project's path.
 */
export function demoProject(root, { files = {}, plugins }) {
  rmSync(root, { recursive: true, force: true });
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
    writeFileSync(path.join(project, name), text);
  }
  writeFileSync(path.join(project, 'hookwise.config.json'), `${JSON.stringify({ plugins }, null, 2)}\n`);
  return project;
}

/** `src/<name>.txt` for each name, of `lines` lines made by `lineOf(name, number)`. */
export const textFiles = (names, lines, lineOf) =>
  Object.fromEntries(
    names.map((name) => [`src/${name}.txt`, `${Array.from({ length: lines }, (_, index) => lineOf(name, index + 1)).join('\n')}\n`]),
  );

/** `hookwise init --host <host>` in `project`, printed; gives the installed CLI's path for later commands. */
export function hookwiseInit(project, host, print) {
  const cli = require.resolve('@hookwise/cli/package.json');
  const hookwise = path.join(path.dirname(cli), JSON.parse(readFileSync(cli, 'utf8')).bin.hookwise);
  const init = spawnSync(process.execPath, [hookwise, 'init', '--host', host], { cwd: project, encoding: 'utf8' });
  print(`$ hookwise init --host ${host}\n${init.stdout.trim()}`);
  if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
  return hookwise;
}

/**
 * Turn requests one by one: each tool output's length as sent (`cells`); an output first seen
 * whole and later sent shorter is what hookwise took out of that request.
 */
export function toolOutputsSent(requests) {
  const original = new Map();
  return requests
    .filter((request) => request.kind === 'turn')
    .map((request) => {
      const cells = [];
      let prunedCount = 0;
      let prunedTokens = 0;
      for (const message of request.body.messages) {
        if (message.role !== 'tool') continue;
        const text = contentText(message);
        const before = original.get(message.tool_call_id);
        if (before === undefined) original.set(message.tool_call_id, text);
        if (before !== undefined && text.length < before.length) {
          prunedCount++;
          prunedTokens += defaultTokenCounter.count(before) - defaultTokenCounter.count(text);
          cells.push(`✂${format(text.length)}`);
        } else cells.push(format(text.length));
      }
      return { index: request.index, cells, prunedCount, prunedTokens };
    });
}

/** The project's hookwise event log (none until something was logged). */
export function hookwiseEvents(project) {
  const log = path.join(project, '.hookwise', 'logs', 'events.jsonl');
  return (existsSync(log) ? readFileSync(log, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((entry) => JSON.parse(entry));
}

/** hook-prune's `prune:applied` events in one line. */
export function appliedLine(applied) {
  return `hook-prune's event log: ${applied.map((event) => `prune:applied ${event.prunedCount} output(s), ${format(event.tokensReclaimed)} tokens reclaimed`).join('; ') || 'nothing applied'}`;
}
