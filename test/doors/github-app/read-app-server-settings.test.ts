import { describe, expect, it } from "@jest/globals";
import { readAppServerSettings } from "../../../src/doors/github-app/start-app-server.js";

const base = {
  APP_ID: "123",
  PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
  WEBHOOK_SECRET: "s",
};

describe("the App's settings from the environment", () => {
  it("names what is missing instead of starting half-configured", async () => {
    const settings = await readAppServerSettings({});
    expect(settings.success).toBe(false);
    if (!settings.success)
      expect(settings.missing).toEqual(expect.arrayContaining(["APP_ID", "WEBHOOK_SECRET"]));
  });

  it("reads the queue limits and refuses a bad one, naming the variable", async () => {
    const good = await readAppServerSettings({
      ...base,
      AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY: "8",
      AGENTFORGE_WORKER_CONCURRENCY: "3",
    });
    expect(good.success && good.value).toMatchObject({ globalConcurrency: 8, concurrency: 3 });
    const bad = await readAppServerSettings({ ...base, AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY: "0" });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.problems.join(" ")).toContain("AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY");
  });
});
