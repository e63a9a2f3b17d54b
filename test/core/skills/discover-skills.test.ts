import { describe, expect, it } from "@jest/globals";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { discoverSkills, repositorySkillRoot } from "../../../src/core/skills/discover-skills.js";
import { renderSkillIndex } from "../../../src/core/skills/render-skill-index.js";
import { skillFile, withTempDir, writeFiles } from "./skills-test-helpers.js";

describe("discoverSkills", () => {
  it("finds valid skills one level deep and reports invalid ones", async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "operator-skills");
      await writeFiles(root, {
        "run-tests/SKILL.md": skillFile("run-tests", "Run the test suite and read failures"),
        "release/SKILL.md": skillFile("release", "Cut a release"),
        "broken/SKILL.md": "---\nname: Broken!\ndescription: x\n---\n",
        "no-front-matter/SKILL.md": "# nothing here",
        "not-a-skill/README.md": "no SKILL.md in here",
        "deep/nested/SKILL.md": skillFile("nested", "too deep to count"),
        ".hidden/SKILL.md": skillFile("hidden", "dot folders are ignored"),
        "loose-file.md": "ignored",
      });
      const { skills, problems } = await discoverSkills([root]);
      expect(skills.map((skill) => skill.name)).toEqual(["release", "run-tests"]);
      expect(skills[1]).toMatchObject({
        description: "Run the test suite and read failures",
        origin: "operator",
        body: "# run-tests\n\nSteps for run-tests.\n",
      });
      expect(problems).toHaveLength(2);
      expect(problems.find((problem) => problem.includes(join("broken", "SKILL.md")))).toContain("name");
      expect(problems.find((problem) => problem.includes("no-front-matter"))).toContain("front matter");
    });
  });

  it("earlier roots win and duplicates are reported, not silently overridden", async () => {
    await withTempDir(async (dir) => {
      await writeFiles(dir, {
        "first/deploy/SKILL.md": skillFile("deploy", "the operator's deploy"),
        "second/deploy-copy/SKILL.md": skillFile("deploy", "a repository's deploy"),
        "second/lint/SKILL.md": skillFile("lint", "lint it"),
      });
      const { skills, problems } = await discoverSkills([join(dir, "first"), join(dir, "second")]);
      expect(skills.map((skill) => [skill.name, skill.description])).toEqual([
        ["deploy", "the operator's deploy"],
        ["lint", "lint it"],
      ]);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain("deploy-copy");
      expect(problems[0]).toContain("already found");
    });
  });

  it("a missing operator root is a problem, a missing repository root is not", async () => {
    await withTempDir(async (dir) => {
      const result = await discoverSkills([
        join(dir, "nope"),
        repositorySkillRoot(join(dir, "repo-without-skills")),
      ]);
      expect(result.skills).toEqual([]);
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toContain(join(dir, "nope"));
    });
  });

  it("refuses repository skills whose real path leaves the repository", async () => {
    await withTempDir(async (dir) => {
      const repo = join(dir, "repo");
      await writeFiles(dir, {
        "repo/.agentforge/skills/good/SKILL.md": skillFile("good", "inside the repository"),
        "repo/docs/shared-skill/SKILL.md": skillFile("shared", "linked from inside the repository"),
        "outside/secret-skill/SKILL.md": skillFile("stolen", "should never be read"),
        "outside/file-skill.md": skillFile("stolen-file", "should never be read"),
      });
      const skillsDir = join(repo, ".agentforge", "skills");
      await symlink(join(dir, "outside", "secret-skill"), join(skillsDir, "linked-dir"));
      await mkdir(join(skillsDir, "linked-file"));
      await symlink(join(dir, "outside", "file-skill.md"), join(skillsDir, "linked-file", "SKILL.md"));
      await symlink(join(repo, "docs", "shared-skill"), join(skillsDir, "inner-link"));

      const { skills, problems } = await discoverSkills([repositorySkillRoot(repo)]);
      expect(skills.map((skill) => skill.name).sort()).toEqual(["good", "shared"]);
      expect(skills.every((skill) => skill.origin === "repository")).toBe(true);
      expect(problems).toHaveLength(2);
      for (const problem of problems) expect(problem).toContain("outside");
      expect(JSON.stringify(skills)).not.toContain("should never be read");
    });
  });

  it("refuses a repository skills folder that is itself a link out of the repository", async () => {
    await withTempDir(async (dir) => {
      const repo = join(dir, "repo");
      await writeFiles(dir, {
        "outside/evil/SKILL.md": skillFile("evil", "outside"),
        "repo/README.md": "hi",
      });
      await mkdir(join(repo, ".agentforge"));
      await symlink(join(dir, "outside"), join(repo, ".agentforge", "skills"));
      const { skills, problems } = await discoverSkills([repositorySkillRoot(repo)]);
      expect(skills).toEqual([]);
      expect(problems[0]).toContain("outside");
    });
  });

  it("skips files over the size limit", async () => {
    await withTempDir(async (dir) => {
      await writeFiles(dir, { "big/SKILL.md": skillFile("big", "large", "x".repeat(5000)) });
      const { skills, problems } = await discoverSkills([dir], { maxFileBytes: 1000 });
      expect(skills).toEqual([]);
      expect(problems[0]).toContain("limit");
    });
  });
});

describe("renderSkillIndex", () => {
  it("renders one line per skill and marks repository skills", async () => {
    await withTempDir(async (dir) => {
      const repo = join(dir, "repo");
      await writeFiles(dir, {
        "operator/alpha/SKILL.md": skillFile("alpha", "Do alpha things"),
        "repo/.agentforge/skills/beta/SKILL.md": skillFile("beta", "Do beta things"),
      });
      const { skills } = await discoverSkills([join(dir, "operator"), repositorySkillRoot(repo)]);
      expect(renderSkillIndex(skills)).toBe(
        "- alpha: Do alpha things\n- beta: Do beta things (repository skill)",
      );
      expect(renderSkillIndex([])).toBe("");
    });
  });
});
