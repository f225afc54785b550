// One app instance of the many-process test: `node redis-increments.mjs <url> <n>` makes n
// concurrent increments of one key through the built Redis store, then exits 0.
import { createRedisStateStore } from '../../../dist/host.js';

const [url, count] = process.argv.slice(2);
const store = createRedisStateStore({ url, project: 'increments' });
await Promise.all(Array.from({ length: Number(count) }, () => store.update('s1', 'count', (current) => (current ?? 0) + 1)));
await store.close();
