import { describe, expect, it } from "@jest/globals";
import { inputVariableName, readActionInputs } from "../../../src/doors/action/action-inputs.js";

function inputs(values: Record<string, string>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [inputVariableName(name), value]));
}

describe("readActionInputs", () => {
  it("keeps dashes in the variable names, as the runner does", () => {
    expect(inputVariableName("github-token")).toBe("INPUT_GITHUB-TOKEN");
    expect(inputVariableName("max-turns")).toBe("INPUT_MAX-TURNS");
  });

  it("applies the defaults when nothing is given", () => {
    const result = readActionInputs({});
    expect(result).toEqual({
      success: true,
      value: expect.objectContaining({
        mode: "auto",
        approval: "never",
        allowedCommands: [],
        maxTurns: undefined,
      }),
    });
  });

  it("treats empty inputs (an absent secret) as unset", () => {
    const result = readActionInputs(inputs({ "api-key": "", mode: "  ", "github-token": "" }));
    expect(result.success && result.value).toMatchObject({
      apiKey: undefined,
      mode: "auto",
      githubToken: undefined,
    });
  });

  it("splits allowed commands on newlines and commas and drops blanks and comments", () => {
    const result = readActionInputs(
      inputs({ "allowed-commands": "npm test\n  pytest -q , make lint\n# note\n\n" }),
    );
    expect(result.success && result.value.allowedCommands).toEqual(["npm test", "pytest -q", "make lint"]);
  });

  it("splits allowed models on newlines and commas, and refuses a name with a space", () => {
    const result = readActionInputs(
      inputs({ "allowed-models": "gpt-4.1\n openai/gpt-5 , qwen2.5-coder:7b\n" }),
    );
    expect(result.success && result.value.allowedModels).toEqual([
      "gpt-4.1",
      "openai/gpt-5",
      "qwen2.5-coder:7b",
    ]);
    expect(readActionInputs({}).success && readActionInputs({})).toMatchObject({
      value: { allowedModels: [] },
    });
    const bad = readActionInputs(inputs({ "allowed-models": "gpt 4" }));
    expect(bad.success).toBe(false);
    expect(!bad.success && bad.error).toContain('input "allowed-models"');
  });

  it("names the input and the bad value in the error", () => {
    const result = readActionInputs(inputs({ "max-turns": "many", mode: "fixit" }));
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toContain('input "max-turns"');
    expect(result.error).toContain('"many"');
    expect(result.error).toContain('input "mode" must be one of auto, fix, plan, review, run');
  });

  it("never echoes a malformed credential", () => {
    const result = readActionInputs(inputs({ "api-key": "sk-secret part" }));
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toContain('input "api-key"');
    expect(result.error).not.toContain("sk-secret");
  });

  it("names the workflow token's bot unless bot-login names the App token's, and refuses what is no login", () => {
    expect(readActionInputs({}).success && readActionInputs({})).toMatchObject({
      value: { botLogin: "github-actions[bot]" },
    });
    expect(readActionInputs(inputs({ "bot-login": "my-app[bot]" }))).toMatchObject({
      value: { botLogin: "my-app[bot]" },
    });
    expect(readActionInputs(inputs({ "bot-login": "a b" }))).toEqual({
      success: false,
      error: 'input "bot-login" must be a GitHub login such as "my-app[bot]" (got "a b")',
    });
  });

  it("refuses a base URL that is not http(s)", () => {
    const result = readActionInputs(inputs({ "base-url": "file:///etc/passwd" }));
    expect(result.success ? "" : result.error).toContain('input "base-url"');
  });

  it("reads the trigger phrase as a mention and the trigger label, and refuses a phrase that is not one", () => {
    expect(readActionInputs({})).toMatchObject({
      value: { triggerName: "agentforge", triggerLabel: undefined },
    });
    expect(
      readActionInputs(inputs({ "trigger-phrase": "@my-bot", "trigger-label": "ai fix" })),
    ).toMatchObject({
      value: { triggerName: "my-bot", triggerLabel: "ai fix" },
    });
    for (const phrase of ["my-bot", "@my bot", "@-bot", "@bot-", "@a--b", `@${"a".repeat(40)}`]) {
      const result = readActionInputs(inputs({ "trigger-phrase": phrase }));
      expect(result.success ? phrase : result.error).toContain('input "trigger-phrase" must be a mention');
    }
  });
});
