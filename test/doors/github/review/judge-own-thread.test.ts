import { describe, expect, it } from "@jest/globals";
import { fingerprintMarker } from "../../../../src/doors/github/review/fingerprint-finding.js";
import {
  isOwnAuthor,
  judgeOwnThread,
  type FileChange,
} from "../../../../src/doors/github/review/judge-own-thread.js";
import type {
  ReviewThread,
  ReviewThreadComment,
} from "../../../../src/doors/github/review/read-review-threads.js";
import { readFileChange } from "../../../../src/doors/github/review/read-file-changes.js";

const FINGERPRINT = "0123456789abcdef";
const OWN = "agentforge[bot]";

function comment(overrides: Partial<ReviewThreadComment> = {}): ReviewThreadComment {
  return {
    author: "agentforge",
    authorType: "Bot",
    body: `**HIGH · Division by zero** _(correctness)_\n\n${fingerprintMarker(FINGERPRINT)}`,
    url: "https://github.example/o/r/pull/1#discussion_r1",
    originalCommit: "a".repeat(40),
    thumbsDownBy: [],
    ...overrides,
  };
}

function thread(overrides: Partial<ReviewThread> = {}): ReviewThread {
  return {
    id: "PRRT_1",
    isResolved: false,
    resolvedBy: null,
    isOutdated: false,
    path: "sum.js",
    side: "RIGHT",
    originalLine: 5,
    originalStartLine: null,
    comments: [comment()],
    ...overrides,
  };
}

const modified = (changed: number[], insertedAfter: number[] = []): FileChange => ({
  kind: "modified",
  changedLines: new Set(changed),
  insertedAfter: new Set(insertedAfter),
});

function judge(t: ReviewThread, change: FileChange, raisedAgain: string[] = []) {
  return judgeOwnThread({ thread: t, ownLogin: OWN, raisedAgain: new Set(raisedAgain), change });
}

describe("judgeOwnThread: was this finding fixed", () => {
  it("calls a finding fixed when its line changed, a guard was added right above it, or its file was deleted", () => {
    expect(judge(thread(), modified([5]))).toEqual({
      kind: "fixed",
      because: "lines-changed",
      fingerprint: FINGERPRINT,
    });
    expect(judge(thread(), modified([], [4]))).toMatchObject({ kind: "fixed", because: "lines-changed" });
    expect(judge(thread({ originalStartLine: 3 }), modified([], [3]))).toMatchObject({ kind: "fixed" });
    expect(judge(thread(), { kind: "deleted" })).toMatchObject({ kind: "fixed", because: "file-deleted" });
  });

  it("keeps a finding whose lines the commits left alone, or whose commit is gone", () => {
    expect(judge(thread(), modified([1, 9], [6, 2]))).toEqual({ kind: "keep", because: "lines-unchanged" });
    expect(judge(thread(), { kind: "untouched" })).toEqual({ kind: "keep", because: "lines-unchanged" });
    expect(judge(thread(), { kind: "unknown" })).toEqual({ kind: "keep", because: "unknown-commit" });
    expect(judge(thread({ side: "LEFT" }), modified([5]))).toEqual({ kind: "keep", because: "old-side" });
  });

  it("keeps a finding the new review raised again", () => {
    expect(judge(thread(), modified([5]), [FINGERPRINT])).toEqual({ kind: "keep", because: "raised-again" });
  });

  it("never touches a person's thread, a thread without a fingerprint, or one a person named like the bot opened", () => {
    const person = comment({ author: "alice", authorType: "User" });
    expect(judge(thread({ comments: [person] }), modified([5]))).toEqual({
      kind: "keep",
      because: "not-own",
    });
    // A person whose login is the app's slug is not the app's bot.
    const lookalike = comment({ author: "agentforge", authorType: "User" });
    expect(judge(thread({ comments: [lookalike] }), modified([5]))).toEqual({
      kind: "keep",
      because: "not-own",
    });
    const unmarked = comment({ body: "**HIGH · Division by zero**" });
    expect(judge(thread({ comments: [unmarked] }), modified([5]))).toEqual({
      kind: "keep",
      because: "no-fingerprint",
    });
    expect(judge(thread({ comments: [] }), modified([5]))).toEqual({ kind: "keep", because: "not-own" });
  });

  it("leaves a thread resolved by a person, or refused by a reply or a 👎, as it is", () => {
    expect(judge(thread({ isResolved: true, resolvedBy: "alice" }), modified([5]))).toEqual({
      kind: "keep",
      because: "resolved",
    });
    for (const text of [
      "Won't fix.",
      "wontfix",
      "This is not a bug",
      "False positive: b is never 0",
      "by design",
    ]) {
      const reply = comment({ author: "alice", authorType: "User", body: text });
      expect(judge(thread({ comments: [comment(), reply] }), modified([5]))).toEqual({
        kind: "keep",
        because: "refused",
      });
    }
    const downvoted = comment({ thumbsDownBy: ["alice"] });
    expect(judge(thread({ comments: [downvoted] }), modified([5]))).toEqual({
      kind: "keep",
      because: "refused",
    });
  });

  it("does not take a question, the bot's own words or its own 👎 for a refusal", () => {
    const question = comment({ author: "alice", authorType: "User", body: "Is this a bug? I will fix it." });
    expect(judge(thread({ comments: [comment(), question] }), modified([5]))).toMatchObject({
      kind: "fixed",
    });
    const ownReply = comment({ body: "Not a bug after all? See below." });
    expect(judge(thread({ comments: [comment(), ownReply] }), modified([5]))).toMatchObject({
      kind: "fixed",
    });
    const ownVote = comment({ thumbsDownBy: [OWN] });
    expect(judge(thread({ comments: [ownVote] }), modified([5]))).toMatchObject({ kind: "fixed" });
  });

  it("matches the bot under the REST and the GraphQL spelling of its login", () => {
    expect(isOwnAuthor({ author: "agentforge[bot]", authorType: null }, OWN)).toBe(true);
    expect(isOwnAuthor({ author: "agentforge", authorType: "Bot" }, OWN)).toBe(true);
    expect(isOwnAuthor({ author: "github-actions", authorType: "Bot" }, "github-actions[bot]")).toBe(true);
    expect(isOwnAuthor({ author: null, authorType: null }, OWN)).toBe(false);
  });
});

describe("readFileChange", () => {
  const diff = (body: string, header = "--- a/sum.js\n+++ b/sum.js") =>
    `diff --git a/sum.js b/sum.js\nindex 1111111..2222222 100644\n${header}\n${body}`;

  it("numbers rewritten lines and insertions on the old side", () => {
    const text = diff(
      "@@ -3,4 +3,5 @@\n }\n function div(a, b) {\n+  if (b === 0) throw new Error();\n-  return a / b;\n+  return a / b || 0;\n }\n",
    );
    expect(readFileChange(text, "sum.js")).toEqual({
      kind: "modified",
      changedLines: new Set([5]),
      insertedAfter: new Set([4, 5]),
    });
    expect(readFileChange(text, "other.js")).toEqual({ kind: "untouched" });
  });

  it("reads a deleted file, and a file renamed away, as deleted", () => {
    const deleted =
      "diff --git a/sum.js b/sum.js\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/sum.js\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n";
    expect(readFileChange(deleted, "sum.js")).toEqual({ kind: "deleted" });
    const renamed =
      "diff --git a/sum.js b/lib/sum.js\nsimilarity index 100%\nrename from sum.js\nrename to lib/sum.js\n";
    expect(readFileChange(renamed, "sum.js")).toEqual({ kind: "deleted" });
  });
});
