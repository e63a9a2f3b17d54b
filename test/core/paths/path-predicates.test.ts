import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import path from "node:path";
import { hasGitSegment, isGitName, isPathInside } from "../../../src/core/paths/index.js";

const segment = fc.oneof(
  fc.constantFrom("a", "b", "..a", "a..", ".", "..", ".git", "x.y", " ", "…"),
  fc.stringMatching(/^[a-z.]{1,6}$/),
);
const absolute = fc.array(segment, { maxLength: 6 }).map((parts) => path.resolve("/", ...parts));

/** The definition, by segments: `candidate` starts with every segment of `parent`. */
function bySegments(parent: string, candidate: string): boolean {
  const parentParts = parent.split("/").filter(Boolean);
  const candidateParts = candidate.split("/").filter(Boolean);
  return parentParts.every((part, index) => candidateParts[index] === part);
}

describe("isPathInside(parent, candidate)", () => {
  it("agrees with a segment-by-segment comparison of normalised absolute paths", () => {
    fc.assert(
      fc.property(absolute, absolute, (parent, candidate) => {
        expect(isPathInside(parent, candidate)).toBe(bySegments(parent, candidate));
      }),
      { numRuns: 2000 },
    );
  });

  it("holds every path below a parent, and nothing that only shares a prefix of its name", () => {
    fc.assert(
      fc.property(absolute, fc.array(segment, { maxLength: 4 }), (parent, below) => {
        expect(isPathInside(parent, path.resolve(parent, ...below.filter((part) => part !== "..")))).toBe(
          true,
        );
        if (parent !== "/") expect(isPathInside(parent, `${parent}x`)).toBe(false);
      }),
    );
  });

  it.each([
    ["/work/tree", "/work/tree", true],
    ["/work/tree", "/work/tree/..cache", true],
    ["/work/tree", "/work/treehouse", false],
    ["/work/tree", "/work", false],
    ["/", "/etc", true],
  ])("isPathInside(%s, %s) is %s", (parent, candidate, expected) => {
    expect(isPathInside(parent, candidate)).toBe(expected);
  });
});

describe("git's own names", () => {
  it.each([".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", ".git.."])("%j is git's", (name) => {
    expect(isGitName(name)).toBe(true);
  });
  it.each([".gitignore", ".github", "git", "x.git", ".git_x", ".gits"])("%j is not", (name) => {
    expect(isGitName(name)).toBe(false);
  });
  it("finds one at any depth, with either separator, and never invents one", () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), fc.boolean(), (parts, windows) => {
        const joined = parts.join(windows ? "\\" : "/");
        expect(hasGitSegment(joined)).toBe(parts.some((part) => /^\.git[. ]*$/i.test(part)));
      }),
    );
  });
});
