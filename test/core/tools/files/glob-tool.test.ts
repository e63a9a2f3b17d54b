import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { globTool } from "../../../../src/core/tools/files/glob-tool.js";
import { createWorkspace, initGitRepository, runTool, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
  initGitRepository(workspace.root);
  await workspace.write(".gitignore", "build/\n!keep.generated.ts\n*.generated.ts\n");
  await workspace.write("src/index.ts", "");
  await workspace.write("src/core/loop.ts", "");
  await workspace.write("src/core/loop.test.js", "");
  await workspace.write("src/x.generated.ts", "");
  await workspace.write("build/out.ts", "");
  await workspace.write(".github/workflows/ci.ts", "");
  await workspace.write("node_modules/dep/index.ts", "");
  await workspace.write("README.md", "");
});
afterEach(async () => {
  await workspace.cleanup();
});

const glob = (input: Record<string, unknown>) => runTool(globTool, input, workspace.context);

describe("glob", () => {
  it("matches across directories with ** and returns sorted workspace paths", async () => {
    const result = await glob({ pattern: "**/*.ts" });
    expect(result.output.split("\n")).toEqual([
      ".github/workflows/ci.ts",
      "src/core/loop.ts",
      "src/index.ts",
    ]);
    expect(result.metadata).toMatchObject({ count: 3, truncated: false });
  });

  it("keeps * within one directory and walks only below the literal prefix", async () => {
    expect((await glob({ pattern: "*.md" })).output).toBe("README.md");
    expect((await glob({ pattern: "src/*.ts" })).output).toBe("src/index.ts");
    expect((await glob({ pattern: "src/core/loop.ts" })).output).toBe("src/core/loop.ts");
    expect((await glob({ pattern: "*.ts", path: "src/core" })).output).toBe("src/core/loop.ts");
  });

  it("includes node_modules only when the pattern names it", async () => {
    expect((await glob({ pattern: "node_modules/**/*.ts" })).output).toBe("node_modules/dep/index.ts");
    await workspace.write(".gitignore", "node_modules/\n");
    expect((await glob({ pattern: "node_modules/**/*.ts" })).output).toBe("node_modules/dep/index.ts");
    expect((await glob({ pattern: "**/index.ts" })).output).toBe("src/index.ts");
  });

  it("reports no matches and refuses patterns that leave the workspace", async () => {
    const none = await glob({ pattern: "**/*.rs" });
    expect(none.ok).toBe(true);
    expect(none.metadata).toMatchObject({ count: 0 });
    expect((await glob({ pattern: "../**/*" })).error?.error_type).toBe("OUTSIDE_WORKSPACE");
    expect((await glob({ pattern: "/etc/*" })).error?.error_type).toBe("OUTSIDE_WORKSPACE");
  });

  it("does not follow a symlinked directory that points outside", async () => {
    await workspace.write("../outside/leak.ts", "");
    await symlink(workspace.outside, path.join(workspace.root, "escape"));
    expect((await glob({ pattern: "**/leak.ts" })).metadata).toMatchObject({ count: 0 });
    expect((await glob({ pattern: "escape/*.ts" })).error?.error_type).toBe("OUTSIDE_WORKSPACE");
  });

  it("does not list git's own files, even for a pattern or path under .git, as its description says", async () => {
    for (const input of [
      { pattern: ".git/*" },
      { pattern: ".git/**" },
      { pattern: "*", path: ".git" },
      { pattern: "**", path: ".git/." },
    ]) {
      const result = await glob(input);
      expect(result.ok).toBe(false);
      expect(result.error?.error_type).toBe("INVALID_ARGUMENTS");
      expect(result.error?.message).toMatch(/inside \.git/);
      expect(result.output).not.toContain("HEAD");
    }
    expect((await glob({ pattern: "**/*" })).output).not.toMatch(/^\.git\//m);
  });
});
