export type LineEnding = "lf" | "crlf" | "mixed" | "none";

export function detectLineEnding(text: string): LineEnding {
  const newlines = countOccurrences(text, "\n");
  if (newlines === 0) return "none";
  const crlf = countOccurrences(text, "\r\n");
  if (crlf === 0) return "lf";
  return crlf === newlines ? "crlf" : "mixed";
}

export function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

export function toCrlf(text: string): string {
  return text.replaceAll("\n", "\r\n");
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) {
    count += 1;
  }
  return count;
}
