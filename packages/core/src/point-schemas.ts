import * as z from 'zod/mini';
import { payloadOf, type PointName, type PointSchemas } from './points.js';

const built: { -readonly [P in PointName]?: PointSchemas[P] } = {};

/**
 * The zod schema of a point's payload, built on first use from the point's description in
 * points.ts (the engine parses good payloads without it and asks for it to word a bad one).
 * Host-side, under `@hookwise/core/host`: it loads zod, which the main entry does not.
 */
export function pointSchema<P extends PointName>(point: P): PointSchemas[P] {
  return (built[point] ??= payloadOf(point).schema(z) as never) as PointSchemas[P];
}
