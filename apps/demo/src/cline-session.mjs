// Part 6 of `npm run demo`: a real Cline CLI session (cline 3.0.65, installed once into
// ~/.cache/hookwise by scripts/install-cline.mjs; its plugin sandbox on install-pi.mjs's Node 22)
// runs with @hookwise/adapter-cline against a loopback stand-in model; every request Cline sent
// is shown with what hookwise took out of it, next to what Cline stored.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStandInModel } from '../../../test-support/stand-in-chat-model.mjs';
import { CLINE_VERSION, ensureCline } from '../../../scripts/install-cline.mjs';
import { appliedLine, demoProject, format, hookwiseEvents, hookwiseInit, textFiles, toolOutputsSent } from './live-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india'];
const line = (name, index) => `${name}-line-${String(index).padStart(3, '0')}: ${'lorem ipsum '.repeat(5).trim()}`;

/** `cline --json <prompt>` in `cwd` to its end (killed after three minutes). */
function runCline(cline, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cline, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** One project and one Cline run: `hookwise init --host cline`, then nine reads. */
async function session({ root, installed, prune, print }) {
  const project = demoProject(root, { files: textFiles(FILES, 100, line), plugins: { '@hookwise/hook-prune': prune } });
  // Cline's workspace is the git repository around the folder: a project of its own, not this clone.
  spawnSync('git', ['init', '-q'], { cwd: project });
  hookwiseInit(project, 'cline', print);
  let turn = 0;
  const model = await startStandInModel((_body, kind) => {
    if (kind !== 'turn') return undefined;
    const name = FILES[turn++];
    return name ? { toolCalls: [{ name: 'read_files', arguments: { files: [{ path: `src/${name}.txt` }] } }] } : { text: 'Read them all.' };
  });
  try {
    const home = path.join(root, 'home');
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: path.join(root, 'tmp'),
      CLINE_SESSION_BACKEND_MODE: 'local',
      CLINE_NO_AUTO_UPDATE: '1',
      CLINE_JS_RUNTIME_PATH: installed.node,
      CLINE_PLUGIN_IMPORT_TIMEOUT_MS: '30000',
      CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS: '200000',
    };
    mkdirSync(env.TMPDIR, { recursive: true });
    spawnSync(installed.cline, ['auth', '-p', 'openai-compatible', '-k', 'demo', '-m', 'standin-model', '-b', model.baseURL], {
      cwd: project,
      env,
    });
    print(`\n$ cline --json "read the files"   (cline ${CLINE_VERSION}, model: the loopback stand-in)`);
    const started = Date.now();
    const run = await runCline(installed.cline, ['--json', '--compaction', 'off', 'read the files'], { cwd: project, env });
    if (run.code !== 0) throw new Error(`cline exited ${run.code}: ${run.stderr.slice(-800)}`);
    const sessions = path.join(home, '.cline', 'data', 'sessions');
    const id = readdirSync(sessions).sort().at(-1);
    const stored = JSON.parse(readFileSync(path.join(sessions, id, `${id}.messages.json`), 'utf8')).messages;
    return {
      requests: toolOutputsSent(model.requests),
      events: hookwiseEvents(project),
      storedOutputs: stored
        .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
        .filter((block) => block.type === 'tool_result').length,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await model.close();
  }
}

/** Runs the Cline part; on a machine where Cline cannot be installed it says so in one line. */
export async function runClineSession({ print }) {
  let installed;
  try {
    installed = ensureCline();
  } catch (error) {
    print(`Cline part skipped: ${String(error.message ?? error).split('\n')[0]}`);
    return undefined;
  }
  const facts = await session({
    root: path.join(demoDir, 'out', 'cline-demo'),
    installed,
    prune: { policy: 'window', protectTokens: 3_000, minimumTokens: 1_000 },
    print,
  });
  print(`\nrequest  tool outputs sent (chars)                                      taken out by hookwise (hook-prune, window policy)`);
  for (const request of facts.requests)
    print(
      `#${String(request.index + 1).padEnd(3)}     ${(request.cells.join(' ') || '(none)').padEnd(62)} ${request.prunedCount > 0 ? `${request.prunedCount} output(s) cleared, ~${format(request.prunedTokens)} tokens` : '—'}`,
    );
  print(
    `\n✂ = replaced by hook-prune's placeholder in the request Cline sent; Cline's <id>.messages.json keeps all ${facts.storedOutputs} outputs.`,
  );
  print(appliedLine(facts.events.filter((event) => event.type === 'prune:applied')));
  print(`${facts.requests.length} requests to the stand-in, one Cline run in ${facts.seconds.toFixed(1)} s.`);
  return facts;
}
