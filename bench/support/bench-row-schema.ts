import { z } from "zod";
import type { BenchRow } from "../bench-types.js";

/** NaN is allowed: a bench reports NaN for a figure it could not measure and says why in `case`. */
const figure = z.number().or(z.nan());

const benchRowSchema = z.object({
  benchmark: z.string().min(1),
  case: z.string(),
  value: figure,
  unit: z.string(),
  baseline: figure.optional(),
  baselineLabel: z.string().optional(),
  ratio: figure.optional(),
  target: z.string().optional(),
  targetMet: z.boolean().optional(),
});

export type BenchRowsParse =
  | { readonly success: true; readonly value: readonly BenchRow[] }
  | { readonly success: false; readonly error: string };

/**
 * Checks what a bench file handed back before it reaches the table. Structured clone over IPC
 * keeps NaN, so the rows arrive exactly as the bench made them.
 */
export function parseBenchRows(input: unknown): BenchRowsParse {
  const result = z.array(benchRowSchema).safeParse(input);
  if (!result.success) return { success: false, error: z.prettifyError(result.error) };
  // Optional keys that were present but undefined would break exactOptionalPropertyTypes readers.
  const rows = result.data.map((row): BenchRow => {
    const { baseline, baselineLabel, ratio, target, targetMet, ...required } = row;
    return {
      ...required,
      ...(baseline === undefined ? {} : { baseline }),
      ...(baselineLabel === undefined ? {} : { baselineLabel }),
      ...(ratio === undefined ? {} : { ratio }),
      ...(target === undefined ? {} : { target }),
      ...(targetMet === undefined ? {} : { targetMet }),
    };
  });
  return { success: true, value: rows };
}
