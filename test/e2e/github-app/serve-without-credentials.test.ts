import { describe, expect, it } from "@jest/globals";
import { runCli } from "../support/run-cli.js";
import { privateKey } from "./app-fixture.js";

describe("agentforge serve and worker without what they need", () => {
  it("serve explains how to register the app instead of crashing", async () => {
    const outcome = await runCli(["serve"], { PORT: "0" });
    expect(outcome.code).toBe(64);
    expect(outcome.stderr).toContain("APP_ID");
    expect(outcome.stderr).toContain("WEBHOOK_SECRET");
    expect(outcome.stderr).toContain("https://github.com/settings/apps/new");
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("worker says that it needs REDIS_URL", async () => {
    const outcome = await runCli(["worker"], { APP_ID: "1", PRIVATE_KEY: privateKey, WEBHOOK_SECRET: "s" });
    expect(outcome.code).toBe(64);
    expect(outcome.stderr).toContain("REDIS_URL is not set");
  }, 60_000);
});
