import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { detectSandbox } from "../../src/core/sandbox/index.js";
import { parseMockScript } from "../../src/mock-model/mock-script.js";
import { describeMissingSandbox } from "../../scripts/describe-missing-sandbox.js";

describe("the demo on a machine without bubblewrap", () => {
  it("says so before the run, with the command that installs it", async () => {
    const detection = await detectSandbox({ bwrapPath: "/nonexistent/bin/bwrap" });
    const message = describeMissingSandbox(detection);
    expect(message).toContain("bubblewrap (/nonexistent/bin/bwrap) was not found.");
    expect(message).toContain("sudo apt-get install -y bubblewrap");
    expect(message).toContain("AGENTFORGE_SANDBOX=none npm run demo");
  });

  it("says nothing where the sandbox works", async () => {
    expect(describeMissingSandbox(await detectSandbox())).toBeNull();
  });

  it("has a scripted model that claims no test result it cannot see", () => {
    const script = parseMockScript(readFileSync("demo/script.json", "utf8"));
    if (!script.success) throw new Error(script.error);
    const answer = script.value.steps.at(-1);
    expect(answer?.type).toBe("text");
    const text = answer?.type === "text" ? answer.text : "";
    expect(text).not.toMatch(/\bpass(es|ed)\b(?! is in)/);
    expect(text).not.toMatch(/\d+ passed/);
  });
});
