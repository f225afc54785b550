// Where a hook call's time goes: the bench project of run.mjs (packed packages installed with
// npm, the three plugins), then copies of its bin and run bundle with time marks written in,
// `hookwise run PostToolUse` called N times, and the median milliseconds between marks plus each
// bundled module's top-level time. Diagnostic only: the marks cost a little themselves and the
// markers are found by text, so a phase whose marker is not found merges into the next (said on
// stderr). The ratio to `node -e 0` is bench/run.mjs's job. NODE_EXTRA_CA_CERTS unset.
// Usage: node bench/phases.mjs [calls=25]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_CONFIG, createBenchProject, postToolUseEvent } from './project.mjs';

const calls = Math.max(5, Number(process.argv[2] ?? 25));
const { root, project, bin, env } = createBenchProject({ prefix: 'hookwise-phases-' });
writeFileSync(path.join(project, 'hookwise.config.json'), BENCH_CONFIG);
const event = postToolUseEvent(project);
const call = () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event, encoding: 'utf8' });
call(); // builds the bundle and its code cache

const missing = [];
const mark = (label) => `globalThis.__hwMark&&globalThis.__hwMark(${JSON.stringify(label)});`;
/** Inserts `text` before (or after) the first match of `pattern` (a string: any whitespace may sit between its characters). */
function insert(source, pattern, text, where = 'before') {
  const regex =
    typeof pattern === 'string'
      ? new RegExp(
          [...pattern]
            .filter((c) => !/\s/.test(c))
            .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('\\s*'),
        )
      : pattern;
  const found = regex.exec(source);
  if (!found) {
    missing.push(String(pattern).slice(0, 60));
    return source;
  }
  const at = where === 'before' ? found.index : found.index + found[0].length;
  return source.slice(0, at) + text + source.slice(at);
}

const cacheDir = path.join(project, '.hookwise', 'cache', 'claude-code');
const bundle = path.join(
  cacheDir,
  readdirSync(cacheDir).find((name) => /^run-[0-9a-f]{16}\.cjs$/.test(name)),
);
const saved = { bin: readFileSync(bin, 'utf8'), bundle: readFileSync(bundle, 'utf8') };
try {
  let b = saved.bin;
  b = insert(
    b,
    "'use strict';",
    `{const t0=process.hrtime(),T=[];globalThis.__hwMark=(l)=>{const d=process.hrtime(t0);T.push([l,d[0]*1e3+d[1]/1e6])};process.on('exit',()=>require('node:fs').writeSync(2,'HWMARKS '+JSON.stringify({T,E:globalThis.__hwInits||[]})+'\\n'));__hwMark('bin start')}`,
    'after',
  );
  b = insert(b, 'const stdin = readStdin();', mark('stdin read'), 'after');
  b = insert(b, 'if (bundle) {', mark('bundle found fresh'));
  b = insert(b, 'const script = new vm.Script', mark('bundle and cache read'));
  b = insert(b, 'const module = { exports: {}, filename: file, id: file };', mark('compiled from the cache'));
  b = insert(b, 'if (loaded) {', mark('bundle top level run'));
  let s = saved.bundle;
  // Each module's top level (esbuild's lazy module wrapper), own time and with what it imports.
  const esm =
    /var __esm\s*=\s*\(fn,\s*res,\s*err\)\s*=>\s*function __init\(\)\s*\{\s*if\s*\(err\)\s*throw err\[0\];\s*try\s*\{\s*return fn\s*&&\s*\(res\s*=\s*\(0,\s*fn\[__getOwnPropNames\(fn\)\[0\]\]\)\(fn\s*=\s*0\)\),\s*res/;
  if (esm.test(s)) {
    s = s.replace(
      esm,
      'var __hwStack=[];globalThis.__hwInits=[];var __esm=(fn,res,err)=>function __init(){if(err)throw err[0];try{if(!fn)return res;const n=__getOwnPropNames(fn)[0],t0=process.hrtime();__hwStack.push(0);res=(0,fn[n])(fn=0);const d=process.hrtime(t0),ms=d[0]*1e3+d[1]/1e6,inner=__hwStack.pop();if(__hwStack.length)__hwStack[__hwStack.length-1]+=ms;globalThis.__hwInits.push([n,ms,ms-inner]);return res',
    );
  } else {
    missing.push('esbuild __esm helper');
  }
  s = insert(s, /engine\s*=\s*await loadEngine\(projectDir\);/, mark('input checked'));
  s = insert(s, /engine\s*=\s*await loadEngine\(projectDir\);/, mark('engine made'), 'after');
  s = insert(s, /const result\s*=\s*await dispatchEvent\(engine,\s*event,\s*input\);/, mark('hooks run'), 'after');
  s = insert(s, /await flushState\(engine\);/, mark('state flushed'), 'after');
  writeFileSync(bin, b);
  writeFileSync(bundle, s);
  if (missing.length > 0) console.error(`markers not found (their phase merges into the next): ${missing.join(' | ')}`);
  call(); // the code cache of the marked bundle
  const runs = [];
  for (let index = 0; index < calls; index++) {
    const result = call();
    const line = result.stderr.split('\n').find((text) => text.startsWith('HWMARKS '));
    if (result.status !== 0 || !line) throw new Error(`call failed: ${result.status} ${result.stderr}`);
    runs.push(JSON.parse(line.slice('HWMARKS '.length)));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const labels = runs[0].T.map(([label]) => label);
  console.log(
    `hookwise run PostToolUse, three plugins, bundle: ${calls} calls, median ms since the previous mark, Node ${process.version}`,
  );
  for (let index = 1; index < labels.length; index++) {
    const spans = runs.map((run) => run.T[index][1] - run.T[index - 1][1]);
    console.log(`  ${labels[index].padEnd(26)} ${median(spans).toFixed(2).padStart(6)}`);
  }
  console.log(
    `  ${'total (bin start → last)'.padEnd(26)} ${median(runs.map((run) => run.T.at(-1)[1]))
      .toFixed(2)
      .padStart(6)}`,
  );
  const inits = new Map();
  for (const run of runs) for (const [name, all, own] of run.E) inits.set(name, [...(inits.get(name) ?? []), [own, all]]);
  console.log('module top levels ≥ 0.05 ms (median ms: own, with what they import):');
  [...inits]
    .map(([name, values]) => [name, median(values.map(([own]) => own)), median(values.map(([, all]) => all))])
    .filter(([, own]) => own >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .forEach(([name, own, all]) => console.log(`  ${own.toFixed(2).padStart(5)} ${all.toFixed(2).padStart(5)}  ${name}`));
} finally {
  rmSync(root, { recursive: true, force: true }); // the marked copies go with the scratch project
}
