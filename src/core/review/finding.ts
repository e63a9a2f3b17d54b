import { z } from "zod";

export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
/** Ranking order after severity; a category not listed here ranks after all of them. */
export const CATEGORY_ORDER = [
  "security",
  "correctness",
  "tests",
  "performance",
  "maintainability",
  "style",
] as const;

/** What a reviewer subagent reports; validated, because it is model output. */
export const findingSchema = z.object({
  path: z.string().min(1),
  /** The line the comment is on; with `startLine`, the last line of the range. */
  line: z.number().int().positive(),
  startLine: z.number().int().positive().optional(),
  side: z.enum(["LEFT", "RIGHT"]).optional(),
  severity: z.enum(SEVERITIES),
  category: z.string().min(1).max(40),
  title: z.string().min(1).max(200),
  body: z.string().max(10_000),
  /** Replacement text for the commented lines; rendered as a GitHub suggestion on the new side. */
  suggestion: z.string().max(10_000).optional(),
});

export type Finding = z.output<typeof findingSchema>;
export type Severity = (typeof SEVERITIES)[number];

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

export function categoryRank(category: string): number {
  const index = (CATEGORY_ORDER as readonly string[]).indexOf(category.toLowerCase());
  return index === -1 ? CATEGORY_ORDER.length : index;
}
