// The transcript byte scanner against the plain reader it must equal, on the recorded session.
// Both type every line (readTranscriptEntries; the plain way: read the file, split it, JSON.parse
// each line, transcriptEntriesOf), in this process, against the built dist. Rounds alternate the
// two so both see the same machine; figures are medians of this process's CPU time per read.
// Prints figures; asserts nothing. Unset NODE_EXTRA_CA_CERTS first (it slows Node).
//   node bench/transcript.mjs
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const core = await import(new URL('../dist/claude-code.js', import.meta.url).href);
const SESSION = fileURLToPath(
  new URL('../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
);

async function scanner() {
  let count = 0;
  for await (const batch of core.readTranscriptEntries(SESSION, { synchronous: true })) count += batch.length;
  return count;
}

async function plain() {
  const text = await readFile(SESSION, 'utf8');
  let count = 0;
  let line = 0;
  for (const piece of text.split('\n')) {
    line += 1;
    const clean = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
    if (clean.trim() === '') continue;
    let value;
    try {
      value = JSON.parse(clean);
    } catch (error) {
      count += core.transcriptEntriesOf({ line, error: String(error), text: clean.slice(0, 200) }).length;
      continue;
    }
    count += core.transcriptEntriesOf({ line, value }).length;
  }
  return count;
}

const tasks = { 'byte scanner (readTranscriptEntries)': scanner, 'plain reader (split, JSON.parse each line)': plain };
const samples = Object.fromEntries(Object.keys(tasks).map((name) => [name, []]));
const counts = {};
for (const [name, task] of Object.entries(tasks)) for (let warm = 0; warm < 10; warm++) counts[name] = await task();
for (let round = 0; round < 60; round++) {
  for (const [name, task] of Object.entries(tasks)) {
    const start = process.cpuUsage();
    await task();
    const used = process.cpuUsage(start);
    samples[name].push((used.user + used.system) / 1000);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const [scannerName, plainName] = Object.keys(tasks);
console.log(`transcript: recorded session; Node ${process.version}`);
for (const name of Object.keys(tasks))
  console.log(`${name.padEnd(44)} CPU median ${median(samples[name]).toFixed(2)} ms, ${counts[name]} entries`);
console.log(`plain / scanner: ${(median(samples[plainName]) / median(samples[scannerName])).toFixed(2)}×`);
