import { z } from "zod";

const cache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The JSON Schema the model sees, generated from the zod schema that validates the input. */
export function toolInputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const cached = cache.get(schema);
  if (cached) return cached;
  const generated = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<string, unknown>;
  const { $schema: _ignored, ...rest } = generated;
  cache.set(schema, rest);
  return rest;
}
