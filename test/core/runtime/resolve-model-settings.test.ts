import { describe, expect, it } from "@jest/globals";
import type { ModelEnvironment } from "../../../src/core/model/read-model-environment.js";
import { resolveModelSettings } from "../../../src/core/runtime/resolve-model-settings.js";

const openai: ModelEnvironment = {
  apiKey: "sk-1",
  baseURL: undefined,
  model: "gpt-4.1-mini",
  isModelNamed: false,
  fallbackModels: [],
};
const noConfig = { model: undefined, fallback_models: [], prices: {} };
const served = { servedModels: ["served-one"], contextWindow: 4096, contextWindowSource: "props" as const };

describe("resolveModelSettings: the one choice of model, context and price a run and doctor share", () => {
  it("on OpenAI's endpoint: the list price, and no server facts (a run does not probe it)", () => {
    const settings = resolveModelSettings({ config: noConfig, environment: openai, facts: served });
    expect(settings).toMatchObject({
      model: "gpt-4.1-mini",
      modelSource: "default",
      contextWindow: undefined,
      contextWindowSource: "default",
      price: { value: { inputPerMillion: 0.4, outputPerMillion: 1.6 }, source: "table" },
    });
  });

  it("the operator's price wins over the list price", () => {
    const config = {
      ...noConfig,
      prices: { "gpt-4.1-mini": { input_per_million: 1, output_per_million: 2 } },
    };
    const settings = resolveModelSettings({ config, environment: openai, facts: undefined });
    expect(settings.price).toEqual({
      value: { inputPerMillion: 1, outputPerMillion: 2 },
      source: "operator",
    });
  });

  it("elsewhere: the served model when none is named, the server's context, no list price", () => {
    const local = { ...openai, baseURL: "http://127.0.0.1:8081/v1" };
    expect(resolveModelSettings({ config: noConfig, environment: local, facts: served })).toMatchObject({
      model: "served-one",
      modelSource: "served",
      contextWindow: 4096,
      contextWindowSource: "props",
      price: undefined,
    });
    const named = resolveModelSettings({
      config: { ...noConfig, model: "from-config" },
      environment: { ...local, model: "from-env", isModelNamed: true },
      contextWindow: 9000,
      facts: served,
    });
    expect(named).toMatchObject({
      model: "from-config",
      modelSource: "operator-config",
      contextWindow: 9000,
    });
    expect(named.contextWindowSource).toBe("operator");
    // A local server serving an OpenAI name is not billed OpenAI's price.
    expect(
      resolveModelSettings({
        config: noConfig,
        environment: { ...local, isModelNamed: true },
        facts: undefined,
      }).price,
    ).toBeUndefined();
  });
});
