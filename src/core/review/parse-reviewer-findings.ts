import { findingSchema, type Finding } from "./finding.js";

export type ReviewerFindingsResult =
  | { readonly success: true; readonly value: Finding[]; readonly skipped: number }
  | { readonly success: false; readonly error: string };

/** Reviewers write `start_line` as the API does; the finding schema says `startLine`. */
function normalize(item: unknown): unknown {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  const record = { ...(item as Record<string, unknown>) };
  if (record["startLine"] === undefined && record["start_line"] !== undefined)
    record["startLine"] = record["start_line"];
  delete record["start_line"];
  for (const key of ["startLine", "side", "suggestion"]) if (record[key] === null) delete record[key];
  if (typeof record["severity"] === "string") record["severity"] = record["severity"].toLowerCase();
  if (typeof record["side"] === "string") record["side"] = record["side"].toUpperCase();
  return record;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    if (error instanceof SyntaxError) return { ok: false };
    throw error;
  }
}

/**
 * A reviewer's answer is model output: the JSON array is taken from wherever it sits (a code
 * fence, a sentence before it), each finding is validated on its own, and one bad finding costs
 * only itself. Text with no array in it is an error for the caller to note.
 */
export function parseReviewerFindings(answer: string): ReviewerFindingsResult {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(answer);
  const candidates = [fenced?.[1], answer].filter((text): text is string => text !== undefined);
  for (const candidate of candidates) {
    const start = candidate.indexOf("[");
    const end = candidate.lastIndexOf("]");
    if (start === -1 || end <= start) continue;
    const parsed = parseJson(candidate.slice(start, end + 1));
    if (!parsed.ok || !Array.isArray(parsed.value)) continue;
    const findings: Finding[] = [];
    let skipped = 0;
    for (const item of parsed.value) {
      const finding = findingSchema.safeParse(normalize(item));
      if (finding.success) findings.push(finding.data);
      else skipped += 1;
    }
    return { success: true, value: findings, skipped };
  }
  return { success: false, error: "the answer held no JSON array of findings" };
}
