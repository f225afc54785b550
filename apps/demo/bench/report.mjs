// Speed of `hookwise report` on the bundled 2.7 MB session against the floor: a bare streaming
// parse of the same file (1 MiB chunks, Buffer.indexOf for newlines, JSON.parse per line).
// Both in this process, after warm-up; the figures are medians (p50) of wall time and of this
// process's CPU time per run. CPU time is the steadier of the two on a shared machine (other
// processes stretch wall time, not the work done). Run after a build: it loads the report from
// the CLI's dist, as `hookwise report` does. Unset NODE_EXTRA_CA_CERTS first (it slows Node).
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const SESSION = fileURLToPath(
  new URL('../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
);

async function bareParse(file) {
  const handle = await open(file, 'r');
  const buffer = Buffer.allocUnsafe(1 << 20);
  let pending = [];
  let objects = 0;
  const parse = (bytes) => {
    if (bytes.length > 0 && JSON.parse(bytes.toString('utf8'))) objects++;
  };
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      let start = 0;
      let newline;
      while ((newline = buffer.indexOf(0x0a, start)) !== -1 && newline < bytesRead) {
        parse(pending.length === 0 ? buffer.subarray(start, newline) : Buffer.concat([...pending, buffer.subarray(start, newline)]));
        pending = [];
        start = newline + 1;
      }
      if (start < bytesRead) pending.push(Buffer.from(buffer.subarray(start, bytesRead)));
    }
    if (pending.length > 0) parse(Buffer.concat(pending));
  } finally {
    await handle.close();
  }
  return objects;
}

const require = createRequire(import.meta.url);
const cliDir = path.dirname(require.resolve('@hookwise/cli/package.json'));
const { reportCommand } = await import(pathToFileURL(path.join(cliDir, 'dist', 'report', 'command.js')).href);

let reportBytes = 0;
const runReport = async () => {
  const code = await reportCommand({
    transcript: SESSION,
    json: true,
    projectDir: demoDir,
    stdout: (text) => (reportBytes = text.length),
    stderr: (text) => process.stderr.write(text),
  });
  if (code !== 0) throw new Error(`report exited ${code}`);
};

// Side by side: several short rounds, each timing both tasks one after the other, so both see
// the same machine (on a shared one, load moves in minutes, and a long run of one task then the
// other compares two different machines). Per task and round: tinybench's median wall time and
// the median of this process's CPU time (user + system) per iteration.
const PARSE = 'bare streaming parse';
const REPORT = 'hookwise report --json (3 plugins)';
const ROUNDS = 8;
const cpuHooks = (samples) => {
  let start;
  return {
    beforeEach() {
      start = process.cpuUsage();
    },
    afterEach(mode) {
      const used = process.cpuUsage(start);
      if (mode === 'run') samples.push((used.user + used.system) / 1000);
    },
  };
};
const medianOf = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const rounds = [];
for (let round = 0; round < ROUNDS; round++) {
  const cpu = { [PARSE]: [], [REPORT]: [] };
  const bench = new Bench({ iterations: 5, time: 0, warmupIterations: round === 0 ? 3 : 1 });
  bench.add(PARSE, bareParse.bind(undefined, SESSION), cpuHooks(cpu[PARSE]));
  bench.add(REPORT, runReport, cpuHooks(cpu[REPORT]));
  await bench.run();
  for (const task of bench.tasks) {
    if (task.result.state !== 'completed') {
      console.error(`${task.name}: ${task.result.state}${task.result.error ? `: ${task.result.error.stack ?? task.result.error}` : ''}`);
      process.exit(1);
    }
  }
  const [parseTask, reportTask] = bench.tasks;
  rounds.push({
    parseWall: parseTask.result.latency.p50,
    reportWall: reportTask.result.latency.p50,
    parseCpu: medianOf(cpu[PARSE]),
    reportCpu: medianOf(cpu[REPORT]),
  });
}

const of = (key) => medianOf(rounds.map((round) => round[key]));
console.log(
  `transcript: ${path.basename(SESSION)} (2.7 MB, 2,385 lines); Node ${process.version}; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
);
console.log(`${PARSE.padEnd(38)} wall median ${of('parseWall').toFixed(1)} ms, CPU median ${of('parseCpu').toFixed(1)} ms`);
console.log(`${REPORT.padEnd(38)} wall median ${of('reportWall').toFixed(1)} ms, CPU median ${of('reportCpu').toFixed(1)} ms`);
const wallRatio = medianOf(rounds.map((round) => round.reportWall / round.parseWall));
const cpuRatio = medianOf(rounds.map((round) => round.reportCpu / round.parseCpu));
console.log(
  `report / bare parse (median over ${ROUNDS} rounds of 5 runs each): ${wallRatio.toFixed(2)}× wall, ${cpuRatio.toFixed(2)}× CPU (target ≤ 2.5×); JSON report ${Math.round(reportBytes / 1024)} KB`,
);
