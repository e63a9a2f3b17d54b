import { MAX_COMPARED_LENGTH, stringSimilarity } from "./string-similarity.js";

export interface SimilarLine {
  readonly lineNumber: number;
  readonly text: string;
  readonly score: number;
}

const MINIMUM_SCORE = 0.4;
/** Edit-distance cells one search may fill (a few hundred ms at most). */
const MAX_COMPARED_CELLS = 10_000_000;

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
  const wantedLength = Math.min(wanted.length, MAX_COMPARED_LENGTH);
  let cellsLeft = MAX_COMPARED_CELLS;
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    const trimmed = line.trim();
    if (trimmed === "") continue;
    // The edit distance is at least the difference in length: such a line cannot reach the score.
    const length = Math.min(trimmed.length, MAX_COMPARED_LENGTH);
    if (Math.abs(length - wantedLength) > (1 - MINIMUM_SCORE) * Math.max(length, wantedLength)) continue;
    // Suggestions are a courtesy: on a huge file they stop at a fixed amount of work.
    cellsLeft -= length * wantedLength;
    if (cellsLeft < 0) break;
    const score = stringSimilarity(trimmed, wanted);
    if (score >= MINIMUM_SCORE)
      candidates.push({ lineNumber: index + 1, text: line.replace(/\r$/, ""), score });
  }
  return candidates
    .sort((left, right) => right.score - left.score || left.lineNumber - right.lineNumber)
    .slice(0, limit);
}
