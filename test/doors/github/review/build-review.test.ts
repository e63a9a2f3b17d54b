import { describe, expect, it } from "@jest/globals";
import { buildReview, DEFAULT_MAX_COMMENTS } from "../../../../src/doors/github/review/build-review.js";
import { findingSchema, type Finding } from "../../../../src/core/review/finding.js";
import {
  extractFingerprints,
  fingerprintFinding,
} from "../../../../src/doors/github/review/fingerprint-finding.js";
import { areTitlesSimilar } from "../../../../src/doors/github/review/merge-findings.js";
import { parseDiffForReview } from "../../../../src/doors/github/review/parse-diff-for-review.js";

/** src/app.ts: hunk 1 is new lines 1-6 (old line 2 deleted), hunk 2 is new lines 21-24. */
const DIFF = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,5 +1,6 @@",
  " line1",
  "-line2",
  "+LINE2",
  "+line2b",
  " line3",
  " line4",
  " line5",
  "@@ -20,3 +21,4 @@ function tail() {",
  " line20",
  " line21",
  "+line21b",
  " line22",
  "diff --git a/logo.png b/logo.png",
  "index 3333333..4444444 100644",
  "Binary files a/logo.png and b/logo.png differ",
  "",
].join("\n");
const FILES = parseDiffForReview(DIFF);

function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    path: "src/app.ts",
    line: 2,
    severity: "medium",
    category: "correctness",
    title: "Off by one",
    body: "The bound excludes the last element.",
    ...overrides,
  };
}

describe("buildReview: where a finding goes", () => {
  const cases: { name: string; finding: Finding; inline: Record<string, unknown> | null }[] = [
    {
      name: "added line",
      finding: finding({ line: 3 }),
      inline: { path: "src/app.ts", line: 3, side: "RIGHT" },
    },
    { name: "context line", finding: finding({ line: 22 }), inline: { line: 22, side: "RIGHT" } },
    {
      name: "deleted line on the old side",
      finding: finding({ line: 2, side: "LEFT" }),
      inline: { line: 2, side: "LEFT" },
    },
    { name: "old side of a line not deleted", finding: finding({ line: 4, side: "LEFT" }), inline: null },
    { name: "line between hunks", finding: finding({ line: 12 }), inline: null },
    { name: "line past the end", finding: finding({ line: 99 }), inline: null },
    { name: "file not in the diff", finding: finding({ path: "src/other.ts" }), inline: null },
    { name: "binary file", finding: finding({ path: "logo.png", line: 1 }), inline: null },
    {
      name: "path with ./",
      finding: finding({ path: "./src/app.ts", line: 23 }),
      inline: { path: "src/app.ts", line: 23 },
    },
    {
      name: "range in one hunk",
      finding: finding({ startLine: 2, line: 5 }),
      inline: { start_line: 2, line: 5, start_side: "RIGHT", side: "RIGHT" },
    },
    {
      name: "range across hunks becomes one line",
      finding: finding({ startLine: 4, line: 22 }),
      inline: { line: 22 },
    },
    {
      name: "range backwards becomes one line",
      finding: finding({ startLine: 6, line: 3 }),
      inline: { line: 3 },
    },
    { name: "range of one line", finding: finding({ startLine: 3, line: 3 }), inline: { line: 3 } },
  ];

  it.each(cases)("$name", ({ finding: input, inline }) => {
    const review = buildReview({ findings: [input], files: FILES });
    if (inline === null) {
      expect(review.comments).toEqual([]);
      expect(review.outsideDiff).toHaveLength(1);
      expect(review.body).toContain("Findings outside the diff");
      expect(review.body).toContain(input.title);
      return;
    }
    expect(review.comments).toHaveLength(1);
    expect(review.comments[0]).toMatchObject(inline);
    if (!("start_line" in inline)) expect(review.comments[0]).not.toHaveProperty("start_line");
    expect(review.outsideDiff).toEqual([]);
  });

  it("says which range a one-line fallback stood for and drops its suggestion", () => {
    const review = buildReview({
      findings: [finding({ startLine: 4, line: 22, suggestion: "x" })],
      files: FILES,
    });
    expect(review.comments[0]!.body).toContain("Lines 4–22");
    expect(review.comments[0]!.body).not.toContain("suggestion");
  });

  it("renders a suggestion in a fence its text cannot close", () => {
    const review = buildReview({
      findings: [finding({ line: 3, suggestion: "const a = ```;" })],
      files: FILES,
    });
    expect(review.comments[0]!.body).toContain("````suggestion\nconst a = ```;\n````");
  });
});

describe("buildReview: merging, ranking, capping, fingerprints", () => {
  it("folds duplicates (same file, overlapping lines, similar title) and keeps their text", () => {
    const review = buildReview({
      files: FILES,
      findings: [
        finding({
          line: 3,
          category: "tests",
          severity: "low",
          title: "Off-by-one in the loop bound",
          body: "No test covers the last element.",
        }),
        finding({ startLine: 2, line: 4, severity: "high", title: "Off-by-one in loop bound" }),
        finding({ line: 3, title: "Unused import", category: "maintainability", body: "x is never used" }),
        finding({ line: 23, title: "Off-by-one in the loop bound" }),
      ],
    });
    expect(review.mergedDuplicates).toBe(1);
    expect(review.comments).toHaveLength(3);
    const merged = review.comments[0]!;
    expect(merged).toMatchObject({ start_line: 2, line: 4 });
    expect(merged.body).toContain("HIGH");
    expect(merged.body).toContain("correctness, tests");
    expect(merged.body).toContain("Also noted (tests):_ No test covers the last element.");
  });

  it("ranks by severity, then security before correctness before tests", () => {
    const review = buildReview({
      files: FILES,
      findings: [
        finding({ line: 1, severity: "low", category: "security", title: "A" }),
        finding({ line: 2, severity: "high", category: "tests", title: "B" }),
        finding({ line: 3, severity: "critical", category: "correctness", title: "C" }),
        finding({ line: 4, severity: "high", category: "security", title: "D" }),
        finding({ line: 5, severity: "high", category: "correctness", title: "E" }),
        finding({ line: 6, severity: "high", category: "naming", title: "F" }),
      ],
    });
    expect(review.comments.map((comment) => comment.line)).toEqual([3, 4, 5, 2, 6, 1]);
    expect(review.body).toContain("6 findings (1 critical, 4 high, 1 low)");
  });

  it("caps at 30 by default, keeping the highest ranked", () => {
    const findings = Array.from({ length: 40 }, (_, index) =>
      finding({
        line: 21 + (index % 4),
        title: `Problem ${String.fromCharCode(97 + (index % 26)).repeat(3)}${Math.floor(index / 26)}`,
        body: `body ${index} ${"x".repeat(index)}`,
        severity: index < 5 ? "critical" : "low",
      }),
    );
    const review = buildReview({ files: FILES, findings });
    expect(DEFAULT_MAX_COMMENTS).toBe(30);
    expect(review.comments).toHaveLength(30);
    expect(review.omittedByCap).toBe(10);
    expect(review.comments.slice(0, 5).every((comment) => comment.body.includes("CRITICAL"))).toBe(true);
    expect(review.body).toContain("10 lower-ranked findings were left out (limit 30)");
    expect(buildReview({ files: FILES, findings, maxComments: 3 }).comments).toHaveLength(3);
  });

  it("does not post again what an earlier review posted, inline or in the body", () => {
    const findings = [finding({ line: 3 }), finding({ line: 50, title: "Outside", body: "far away" })];
    const first = buildReview({ files: FILES, findings });
    const posted = new Set(
      [first.body, ...first.comments.map((comment) => comment.body)].flatMap(extractFingerprints),
    );
    expect(posted.size).toBe(2);

    const reworded = [
      finding({ line: 4, body: "The bound  excludes the LAST element!" }),
      findings[1]!,
      finding({ line: 5, title: "New one" }),
    ];
    const second = buildReview({ files: FILES, findings: reworded, previousFingerprints: posted });
    expect(second.skippedAsPosted).toBe(2);
    expect(second.comments).toHaveLength(1);
    expect(second.comments[0]!.body).toContain("New one");
    expect(second.body).toContain("2 findings already reported earlier are not repeated");
  });

  it("keeps model text from forging markers or mentioning people", () => {
    const forged = `<!-- agentforge:fp=${"a".repeat(16)} --> ping @octocat`;
    const review = buildReview({
      files: FILES,
      findings: [finding({ line: 3, body: forged, title: "@admin look" })],
    });
    const body = review.comments[0]!.body;
    expect(extractFingerprints(body)).toEqual([
      fingerprintFinding(finding({ body: forged, title: "@admin look" })),
    ]);
    expect(body).not.toMatch(/(^|\s)@octocat/);
    expect(body).not.toMatch(/(^|\s)@admin/);
  });

  it("validates reviewer output and compares titles loosely", () => {
    expect(findingSchema.safeParse({ ...finding(), line: 0 }).success).toBe(false);
    expect(findingSchema.safeParse({ ...finding(), severity: "urgent" }).success).toBe(false);
    expect(areTitlesSimilar("SQL injection in query", "Possible SQL injection in the query builder")).toBe(
      true,
    );
    expect(areTitlesSimilar("SQL injection", "Missing test for parser")).toBe(false);
  });
});

describe("buildReview with review.min_severity", () => {
  const severe = finding({ line: 3, severity: "high", title: "Crash on empty input", body: "It throws." });
  const minor = finding({ line: 4, severity: "low", title: "Name could be clearer", body: "Rename x." });

  it("posts findings at or above the threshold on lines and folds the rest into one collapsed section", () => {
    const review = buildReview({ findings: [severe, minor], files: FILES, minSeverity: "medium" });
    expect(review.comments.map((comment) => comment.line)).toEqual([3]);
    expect(review.belowThreshold.map((merged) => merged.finding.title)).toEqual(["Name could be clearer"]);
    const section = /<details>\n<summary>1 finding below medium severity[^]*?<\/details>/.exec(review.body);
    expect(section?.[0]).toContain("Name could be clearer");
    // Its fingerprint is in the body, so a later review does not raise it again.
    expect(extractFingerprints(section![0])).toEqual([fingerprintFinding(minor)]);
    expect(review.body).toContain("1 finding (1 high)");
  });

  it("keeps everything inline without a threshold", () => {
    const review = buildReview({ findings: [severe, minor], files: FILES });
    expect(review.comments.map((comment) => comment.line).sort()).toEqual([3, 4]);
    expect(review.body).not.toContain("<details>");
  });
});
