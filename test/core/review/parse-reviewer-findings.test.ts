import { describe, expect, it } from "@jest/globals";
import { parseReviewerFindings } from "../../../src/core/review/parse-reviewer-findings.js";

const valid = {
  path: "a.ts",
  line: 3,
  severity: "high",
  category: "security",
  title: "Injection",
  body: "Quote it.",
};

describe("parseReviewerFindings", () => {
  it("takes the array from a fenced block with prose around it", () => {
    const result = parseReviewerFindings(
      `Findings:\n\`\`\`json\n${JSON.stringify([valid])}\n\`\`\`\nThat is all.`,
    );
    expect(result).toEqual({ success: true, value: [valid], skipped: 0 });
  });

  it("accepts the API's spelling (start_line, upper-case severity) and null optionals", () => {
    const result = parseReviewerFindings(
      JSON.stringify([{ ...valid, severity: "HIGH", start_line: 1, side: "right", suggestion: null }]),
    );
    expect(result.success && result.value[0]).toEqual({ ...valid, startLine: 1, side: "RIGHT" });
  });

  it("skips only the malformed findings", () => {
    const result = parseReviewerFindings(
      JSON.stringify([valid, { ...valid, line: -1 }, { path: "x" }, "text"]),
    );
    expect(result).toEqual({ success: true, value: [valid], skipped: 3 });
  });

  it("reads an empty array as no findings", () => {
    expect(parseReviewerFindings("[]")).toEqual({ success: true, value: [], skipped: 0 });
  });

  it("fails on an answer with no JSON array", () => {
    expect(parseReviewerFindings("Looks good to me!").success).toBe(false);
    expect(parseReviewerFindings('{"path": "a.ts"}').success).toBe(false);
    expect(parseReviewerFindings("[not json]").success).toBe(false);
  });
});
