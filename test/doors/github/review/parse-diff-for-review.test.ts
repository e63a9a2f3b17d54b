import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  diffForPullRequest,
  diffRangeForSynchronize,
} from "../../../../src/doors/github/review/diff-range-for-synchronize.js";
import {
  leftLinesOf,
  parseDiffForReview,
  rightLinesOf,
  type ReviewableFile,
} from "../../../../src/doors/github/review/parse-diff-for-review.js";
import { git } from "../workspace/git-fixtures.js";

const TEN_LINES = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join("\n") + "\n";

describe("parseDiffForReview on a real multi-file diff", () => {
  let root: string;
  let base: string;
  let head: string;
  let files: ReviewableFile[];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-diff-"));
    git(root, "init", "--quiet", "--initial-branch=main");
    await writeFile(path.join(root, "keep.txt"), TEN_LINES);
    await writeFile(path.join(root, "old-name.txt"), "a\nb\nc\nd\ne\nf\ng\nh\n");
    await writeFile(path.join(root, "moved-as-is.txt"), "unchanged content\nsecond line\n");
    await writeFile(path.join(root, "gone.txt"), "bye\nbye again\n");
    await writeFile(path.join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    await writeFile(path.join(root, "café.md"), "bonjour");
    git(root, "add", "--all");
    git(root, "commit", "--quiet", "-m", "base");
    base = git(root, "rev-parse", "HEAD");

    git(root, "mv", "old-name.txt", "new-name.txt");
    await writeFile(path.join(root, "new-name.txt"), "a\nb\nC\nd\ne\nf\ng\nh\n");
    git(root, "mv", "moved-as-is.txt", "docs-moved.txt");
    git(root, "rm", "--quiet", "gone.txt");
    await writeFile(path.join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9]));
    await writeFile(
      path.join(root, "keep.txt"),
      TEN_LINES.replace("line 2\n", "LINE 2\n").replace("line 9\n", "LINE 9\nline 9b\n"),
    );
    await writeFile(path.join(root, "added.ts"), "export const x = 1;\nexport const y = 2;\n");
    await writeFile(path.join(root, "café.md"), "bonjour\nau revoir");
    git(root, "add", "--all");
    git(root, "commit", "--quiet", "-m", "change");
    head = git(root, "rev-parse", "HEAD");
    files = parseDiffForReview(
      await diffForPullRequest({
        repository: { gitDirectory: path.join(root, ".git"), workTree: root },
        base,
        head,
      }),
    );
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  function fileAt(filePath: string): ReviewableFile {
    const file = files.find((candidate) => candidate.path === filePath);
    if (file === undefined)
      throw new Error(`${filePath} not in ${files.map((entry) => entry.path).join(", ")}`);
    return file;
  }

  it("finds every file with its status", () => {
    const summary = Object.fromEntries(
      files.map((file) => [file.path, [file.status, file.previousPath, file.isBinary]]),
    );
    expect(summary).toEqual({
      "added.ts": ["added", null, false],
      "café.md": ["modified", null, false],
      "docs-moved.txt": ["renamed", "moved-as-is.txt", false],
      "gone.txt": ["deleted", null, false],
      "image.png": ["modified", null, true],
      "keep.txt": ["modified", null, false],
      "new-name.txt": ["renamed", "old-name.txt", false],
    });
  });

  it("numbers commentable lines on the new side (added and context) and deleted lines on the old side", () => {
    const keep = fileAt("keep.txt");
    expect([...rightLinesOf(keep)].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect([...leftLinesOf(keep)].sort((a, b) => a - b)).toEqual([2, 9]);
    expect(keep.hunks[0]!.numberedText).toContain("    2 +LINE 2");

    expect([...rightLinesOf(fileAt("added.ts"))]).toEqual([1, 2]);
    expect([...leftLinesOf(fileAt("added.ts"))]).toEqual([]);
    expect([...rightLinesOf(fileAt("gone.txt"))]).toEqual([]);
    expect([...leftLinesOf(fileAt("gone.txt"))]).toEqual([1, 2]);
    expect(rightLinesOf(fileAt("new-name.txt")).has(3)).toBe(true);
    expect(fileAt("docs-moved.txt").hunks).toEqual([]);
    expect(fileAt("image.png").hunks).toEqual([]);
  });

  it("does not count the 'No newline at end of file' marker as a line", () => {
    const cafe = fileAt("café.md");
    expect([...rightLinesOf(cafe)].sort()).toEqual([1, 2]);
    expect([...leftLinesOf(cafe)]).toEqual([1]);
  });

  it("returns nothing for an empty diff", () => {
    expect(parseDiffForReview("")).toEqual([]);
  });
});

describe("diffRangeForSynchronize", () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-sync-"));
    git(root, "init", "--quiet", "--initial-branch=main");
    await writeFile(path.join(root, "a.txt"), "one\n");
    git(root, "add", "--all");
    git(root, "commit", "--quiet", "-m", "base");
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("diffs only the commits a push added, and refuses a rewritten history or a missing commit", async () => {
    git(root, "checkout", "--quiet", "-b", "feature");
    await writeFile(path.join(root, "first.txt"), "first push\n");
    git(root, "add", "--all");
    git(root, "commit", "--quiet", "-m", "first");
    const before = git(root, "rev-parse", "HEAD");
    await writeFile(path.join(root, "second.txt"), "second push\n");
    git(root, "add", "--all");
    git(root, "commit", "--quiet", "-m", "second");
    const after = git(root, "rev-parse", "HEAD");

    const range = await diffRangeForSynchronize({
      repository: { gitDirectory: path.join(root, ".git"), workTree: root },
      before,
      after,
    });
    expect(range.success).toBe(true);
    const paths = range.success ? parseDiffForReview(range.value).map((file) => file.path) : [];
    expect(paths).toEqual(["second.txt"]);

    git(root, "checkout", "--quiet", "-b", "rewritten", "main");
    await writeFile(path.join(root, "other.txt"), "force pushed\n");
    git(root, "add", "--all");
    git(root, "commit", "--quiet", "-m", "rewritten");
    const rewritten = git(root, "rev-parse", "HEAD");
    expect(
      await diffRangeForSynchronize({
        repository: { gitDirectory: path.join(root, ".git"), workTree: root },
        before,
        after: rewritten,
      }),
    ).toMatchObject({
      success: false,
      error: "NOT_FAST_FORWARD",
    });
    expect(
      await diffRangeForSynchronize({
        repository: { gitDirectory: path.join(root, ".git"), workTree: root },
        before: "1".repeat(40),
        after,
      }),
    ).toMatchObject({ success: false, error: "BEFORE_MISSING" });
  });
});
