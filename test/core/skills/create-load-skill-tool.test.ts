import { describe, expect, it } from "@jest/globals";
import type { SkillSummary } from "../../../src/core/skills/discover-skills.js";
import { createLoadSkillTool } from "../../../src/core/skills/create-load-skill-tool.js";
import type { ToolContext } from "../../../src/core/tools/tool.js";

const context: ToolContext = {
  workspaceRoot: "/w",
  scratchDir: "/s",
  signal: new AbortController().signal,
  runId: "run-1",
};

function skill(name: string, body: string): SkillSummary {
  return {
    name,
    description: `about ${name}`,
    origin: "repository",
    path: `/repo/.agentforge/skills/${name}/SKILL.md`,
    body,
  };
}

describe("load_skill", () => {
  it("is a read tool whose output is fenced as skill content", () => {
    const tool = createLoadSkillTool([]);
    expect(tool.name).toBe("load_skill");
    expect(tool.kind).toBe("read");
    expect(tool.source).toBe("skill");
    expect(tool.inputSchema.safeParse({ name: "x" }).success).toBe(true);
    expect(tool.inputSchema.safeParse({}).success).toBe(false);
  });

  it("returns the body of a known skill", async () => {
    const tool = createLoadSkillTool([skill("alpha", "# Alpha\nrun npm test\n")]);
    const result = await tool.execute({ name: "alpha" }, context);
    expect(result.ok).toBe(true);
    expect(result.output).toBe("# Alpha\nrun npm test\n");
    expect(result.metadata).toMatchObject({ skill: "alpha", origin: "repository", isTruncated: false });
  });

  it("caps the body and says so, without splitting a character", async () => {
    const body = "é".repeat(20_000); // 40 000 bytes
    const tool = createLoadSkillTool([skill("big", body)], { maxBytes: 1001 });
    const result = await tool.execute({ name: "big" }, context);
    expect(result.ok).toBe(true);
    const [kept, note] = result.output.split("\n\n");
    expect(kept).toBe("é".repeat(500));
    expect(note).toContain("truncated");
    expect(note).toContain("1000 of 40000 bytes");
    expect(result.metadata).toMatchObject({ isTruncated: true, totalBytes: 40_000 });
  });

  it("uses a 20 000-byte cap by default", async () => {
    const tool = createLoadSkillTool([skill("big", "x".repeat(50_000))]);
    const result = await tool.execute({ name: "big" }, context);
    expect(result.output.startsWith("x".repeat(20_000) + "\n\n[")).toBe(true);
  });

  it("an unknown name is INVALID_ARGUMENTS listing the available names", async () => {
    const tool = createLoadSkillTool([skill("alpha", "a"), skill("beta", "b")]);
    const result = await tool.execute({ name: "gamma" }, context);
    expect(result.ok).toBe(false);
    expect(result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(result.error?.message).toContain("alpha, beta");
    expect(result.next_actions).toEqual(["load_skill alpha", "load_skill beta"]);
  });
});
