import { describe, expect, it } from "@jest/globals";
import { DEFAULT_MODEL, readModelEnvironment } from "../../../src/core/model/read-model-environment.js";

describe("readModelEnvironment", () => {
  it("uses defaults when nothing is set", () => {
    expect(readModelEnvironment({})).toEqual({
      success: true,
      value: {
        apiKey: undefined,
        baseURL: undefined,
        model: DEFAULT_MODEL,
        isModelNamed: false,
        fallbackModels: [],
      },
    });
  });

  it("reads, trims and splits the variables", () => {
    const result = readModelEnvironment({
      OPENAI_API_KEY: " sk-test-123 ",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      AGENTFORGE_MODEL: "llama3.1:8b",
      AGENTFORGE_FALLBACK_MODELS: " gpt-4o-mini, ,gpt-4.1 ,",
    });
    expect(result).toEqual({
      success: true,
      value: {
        apiKey: "sk-test-123",
        baseURL: "http://127.0.0.1:11434/v1",
        model: "llama3.1:8b",
        isModelNamed: true,
        fallbackModels: ["gpt-4o-mini", "gpt-4.1"],
      },
    });
  });

  it("treats empty variables as unset", () => {
    const result = readModelEnvironment({ OPENAI_API_KEY: "", AGENTFORGE_MODEL: "  " });
    expect(result.success && result.value.apiKey).toBeUndefined();
    expect(result.success && result.value.model).toBe(DEFAULT_MODEL);
  });

  it.each([
    [{ OPENAI_BASE_URL: "not a url" }, "OPENAI_BASE_URL"],
    [{ OPENAI_BASE_URL: "ftp://example.com/v1" }, "OPENAI_BASE_URL"],
    [{ AGENTFORGE_MODEL: "gpt-4o, gpt-4.1" }, "AGENTFORGE_MODEL"],
    [{ AGENTFORGE_FALLBACK_MODELS: "gpt-4o,my model" }, "AGENTFORGE_FALLBACK_MODELS"],
    [{ OPENAI_API_KEY: "sk one two" }, "OPENAI_API_KEY"],
  ])("names the bad variable in %j", (env, variable) => {
    const result = readModelEnvironment(env);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toMatch(new RegExp(`^${variable} `));
  });

  it("never echoes the API key in an error", () => {
    const result = readModelEnvironment({ OPENAI_API_KEY: "sk-secret value" });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).not.toContain("sk-secret");
  });
});
