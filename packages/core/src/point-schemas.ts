import {
  array,
  boolean,
  custom,
  enum as zodEnum,
  looseObject,
  minLength,
  nonnegative,
  number,
  object,
  optional,
  positive,
  string,
  unknown,
} from 'zod/mini';
import type { ZodApi } from './payload-parse.js';
import { payloadOf, type PointName, type PointSchemas } from './points.js';

// The functions by name, not `import * as z`: a namespace passed as a value keeps all of zod in a bundle.
const zod: ZodApi = {
  array,
  boolean,
  custom,
  enum: zodEnum,
  looseObject,
  minLength,
  nonnegative,
  number,
  object,
  optional,
  positive,
  string,
  unknown,
};
const built: { -readonly [P in PointName]?: PointSchemas[P] } = {};

/**
 * The zod schema of a point's payload, built on first use from the point's description in
 * points.ts (the engine parses good payloads without it and asks for it to word a bad one).
 * Host-side, under `@hookwise/core/host`: it loads zod, which the main entry does not.
 */
export function pointSchema<P extends PointName>(point: P): PointSchemas[P] {
  return (built[point] ??= payloadOf(point).schema(zod) as never) as PointSchemas[P];
}
