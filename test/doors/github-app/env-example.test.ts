import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { appEnvironmentSchema } from "../../../src/doors/github-app/app-environment-schema.js";

/** Variables read beside the schema: the budgets, the queue prefix, the model, the machine. */
const READ_ELSEWHERE = [
  "AGENTFORGE_BUDGET_TOKENS_PER_DAY",
  "AGENTFORGE_BUDGET_COST_USD_PER_DAY",
  "AGENTFORGE_BUDGET_CONCURRENT_TASKS",
  "AGENTFORGE_QUEUE_PREFIX",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "AGENTFORGE_MODEL",
  "AGENTFORGE_FALLBACK_MODELS",
  "AGENTFORGE_DATA_DIR",
  "AGENTFORGE_CONFIG",
  "AGENTFORGE_SANDBOX",
  "AGENTFORGE_SETUP_NETWORK",
  "GH_ORG",
  "NODE_ENV",
];

describe(".env.example", () => {
  const text = readFileSync(resolve(".env.example"), "utf8");
  const listed = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));

  it.each([...Object.keys(appEnvironmentSchema.shape), ...READ_ELSEWHERE])("lists %s", (name) => {
    expect(listed.has(name)).toBe(true);
  });

  it("sets nothing: every value is empty or commented out", () => {
    const setLines = text.split("\n").filter((line) => /^[A-Z][A-Z0-9_]*=\S/.test(line));
    expect(setLines).toEqual([]);
  });
});
