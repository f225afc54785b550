import { pointSchema } from '../point-schemas.js';
import { payloadParserOf, type PointInput, type PointName, type PointPayload } from '../points.js';
import { parseWith, type SchemaLike } from '../schema.js';

/**
 * A point's payload checked against its schema, as `{ projectDir, host, ...input }` (`defaults`
 * holds the engine's projectDir and host). The plain-code parse of payload-parse.ts goes first:
 * the same data for every payload it accepts, and no zod schema built. What it refuses goes
 * through the schema itself, built then, so a bad payload gets the schema's own error.
 */
export function checkPayload<P extends PointName>(
  point: P,
  input: PointInput<P>,
  defaults: Readonly<Record<string, unknown>>,
): ReturnType<typeof parseWith<PointPayload<P>>> {
  // A plain object is parsed without the spread (the defaults stand for keys it lacks; the parse
  // copies it anyway); anything else (a class instance, an array, no object) is spread first.
  const prototype = typeof input === 'object' && input !== null ? (Object.getPrototypeOf(input) as unknown) : undefined;
  const plain = prototype === Object.prototype || prototype === null;
  const value: Record<string, unknown> = plain ? (input as Record<string, unknown>) : { ...defaults, ...input };
  const data = payloadParserOf(point)(value, defaults);
  return data !== undefined
    ? { ok: true, data: data as PointPayload<P> }
    : parseWith(pointSchema(point) as unknown as SchemaLike<PointPayload<P>>, plain ? { ...defaults, ...input } : value);
}
