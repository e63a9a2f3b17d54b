import { describe, expect, it } from "@jest/globals";
import { formatConfigIssues } from "../../../src/doors/github/format-config-issues.js";
import {
  defaultRepositoryConfig,
  repositoryConfigSchema,
} from "../../../src/doors/github/repository-config.js";

function problems(value: unknown): string[] {
  const result = repositoryConfigSchema.safeParse(value, { reportInput: true });
  return result.success ? [] : formatConfigIssues(result.error.issues);
}

describe("repository config", () => {
  it("has safe defaults", () => {
    expect(defaultRepositoryConfig()).toEqual({
      allowed_commands: [],
      allowed_bots: [],
      setup_commands: [],
      test_commands: [],
      review: { auto: false, drafts: false, ignore_paths: [], max_comments: 30 },
      branch_prefix: "agentforge/",
      trigger: { min_permission: "write" },
      ci: { max_fix_attempts: 2 },
    });
  });

  it("accepts a full valid file", () => {
    const parsed = repositoryConfigSchema.parse({
      model: "gpt-5",
      max_turns: 40,
      allowed_commands: ["npm test"],
      setup_commands: ["npm ci"],
      test_commands: ["npm test"],
      review: { auto: true, drafts: true, ignore_paths: ["dist/**"], max_comments: 100 },
      branch_prefix: "bots/agentforge-",
      trigger: { label: "agentforge", min_permission: "maintain" },
      ci: { max_fix_attempts: 0 },
    });
    expect(parsed.review.max_comments).toBe(100);
    expect(parsed.ci.max_fix_attempts).toBe(0);
  });

  it.each([
    [
      { review: { max_comments: "lots" } },
      '`review.max_comments`: expected a number ≤ 100 (a whole number, at least 1), got "lots" — edit .github/agentforge.yml on the default branch',
    ],
    [{ review: { max_comments: 101 } }, "`review.max_comments`: expected a number ≤ 100"],
    [{ max_turns: 0 }, "`max_turns`: expected a whole number from 1 to 200, got 0"],
    [{ max_turns: 201 }, "`max_turns`: expected a whole number from 1 to 200, got 201"],
    [{ branch_prefix: "../evil" }, "`branch_prefix`: expected letters, digits"],
    [{ branch_prefix: "a b" }, "`branch_prefix`: expected letters, digits"],
    [{ branch_prefix: "x/$(id)" }, "`branch_prefix`: expected letters, digits"],
    [{ allowed_commands: "npm test" }, "`allowed_commands`: expected a list of command prefixes"],
    [
      { allowed_commands: ["npm test", 5] },
      "`allowed_commands[1]`: expected a non-empty command string, got 5",
    ],
    [
      { trigger: { min_permission: "read" } },
      '`trigger.min_permission`: expected one of write, maintain, admin, got "read"',
    ],
    [{ review: { auto: "yes" } }, '`review.auto`: expected true or false, got "yes"'],
    [
      { reviews: {} },
      "`reviews`: unknown key — did you mean review? — the keys allowed here are model, max_turns, allowed_commands",
    ],
    [
      { review: { draft: true } },
      "`review.draft`: unknown key — did you mean drafts? — the keys allowed here are auto, drafts, ignore_paths, max_comments",
    ],
    [{ ci: { max_fix_attempts: 11 } }, "`ci.max_fix_attempts`: expected a whole number from 0 to 10"],
    [
      { ci: { max_attempts: 3 } },
      "`ci.max_attempts`: unknown key — did you mean max_fix_attempts? — the keys allowed here are max_fix_attempts",
    ],
    [["a"], "`.github/agentforge.yml`: expected a mapping of keys"],
  ])("names the key and the fix for %j", (value, expected) => {
    expect(problems(value).join("\n")).toContain(expected);
  });
});
