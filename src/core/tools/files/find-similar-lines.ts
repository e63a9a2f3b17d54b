import { stringSimilarity } from "./string-similarity.js";

export interface SimilarLine {
  readonly lineNumber: number;
  readonly text: string;
  readonly score: number;
}

const MINIMUM_SCORE = 0.4;

/**
 * Lines of `text` that look most like the first non-blank line of `snippet`, compared without
 * surrounding whitespace, best first. Tells the model where its stale or mistyped old_string
 * probably was.
 */
export function findSimilarLines(text: string, snippet: string, limit = 3): SimilarLine[] {
  const wanted = snippet
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.trim();
  if (wanted === undefined) return [];
  const candidates: SimilarLine[] = [];
  text.split("\n").forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "") return;
    const score = stringSimilarity(trimmed, wanted);
    if (score >= MINIMUM_SCORE)
      candidates.push({ lineNumber: index + 1, text: line.replace(/\r$/, ""), score });
  });
  return candidates
    .sort((left, right) => right.score - left.score || left.lineNumber - right.lineNumber)
    .slice(0, limit);
}
