import { describe, expect, it } from "@jest/globals";
import { parseSkillFile } from "../../../src/core/skills/parse-skill-file.js";

describe("parseSkillFile", () => {
  it("reads name, description and the body after the front matter", () => {
    const parsed = parseSkillFile(
      "---\nname: run-tests\ndescription: How to run the tests\nlicense: MIT\n---\n\n# Body\ntext\n",
    );
    expect(parsed).toEqual({
      success: true,
      value: { name: "run-tests", description: "How to run the tests", body: "# Body\ntext\n" },
    });
  });

  it("accepts CRLF files and a byte order mark", () => {
    const parsed = parseSkillFile("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nbody");
    expect(parsed.success && parsed.value.body).toBe("body");
  });

  it.each([
    ["no front matter", "# just markdown"],
    ["unclosed front matter", "---\nname: a\ndescription: b\n"],
    ["invalid yaml", "---\nname: [a\ndescription: b\n---\n"],
    ["not a mapping", "---\n- a\n- b\n---\n"],
    ["missing name", "---\ndescription: b\n---\n"],
    ["missing description", "---\nname: a\n---\n"],
    ["uppercase name", "---\nname: Run\ndescription: b\n---\n"],
    ["name with slash", "---\nname: a/b\ndescription: b\n---\n"],
    ["name too long", `---\nname: ${"a".repeat(65)}\ndescription: b\n---\n`],
    ["multi-line description", "---\nname: a\ndescription: |\n  line one\n  line two\n---\n"],
    ["description too long", `---\nname: a\ndescription: ${"d".repeat(301)}\n---\n`],
    ["empty description", "---\nname: a\ndescription: '  '\n---\n"],
    ["numeric name", "---\nname: 12\ndescription: b\n---\n"],
  ])("refuses %s", (_label, text) => {
    const parsed = parseSkillFile(text);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.error.length).toBeGreaterThan(0);
  });

  it("names the bad field", () => {
    const parsed = parseSkillFile("---\nname: Bad Name\ndescription: ok\n---\n");
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.error).toContain("name");
  });
});
