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

describe("the App's environment, variable by variable", () => {
  it.each([
    [{ PORT: "abc" }, 'PORT: expected a port number (0-65535), got "abc"'],
    [{ PORT: "70000" }, "PORT: expected a port number (0-65535), got 70000"],
    [{ LOG_LEVEL: "loud" }, 'LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, got "loud"'],
    [{ GHE_PROTOCOL: "ftp" }, 'GHE_PROTOCOL: expected http or https, got "ftp"'],
    [
      { AGENTFORGE_QUEUE_LEASE_MS: "1000" },
      "AGENTFORGE_QUEUE_LEASE_MS: expected a whole number of milliseconds, at least 15000, got 1000",
    ],
    [
      { AGENTFORGE_WORKER_CONCURRENCY: "two" },
      'AGENTFORGE_WORKER_CONCURRENCY: expected a whole number ≥ 1, got "two"',
    ],
    [
      { AGENTFORGE_HANDOFF_INTERVAL_MS: "-5" },
      'AGENTFORGE_HANDOFF_INTERVAL_MS: expected a whole number of milliseconds ≥ 0, got "-5"',
    ],
    [
      { PRIVATE_KEY: "", PRIVATE_KEY_PATH: "/nonexistent/key.pem" },
      "PRIVATE_KEY_PATH: cannot read /nonexistent/key.pem (ENOENT)",
    ],
  ])("%j is refused with the message a person reads", async (change, message) => {
    const result = await readAppServerSettings({ ...base, ...change } as NodeJS.ProcessEnv);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.problems).toContain(message);
  });

  it("reads blanks as unset, and every value it knows", async () => {
    const result = await readAppServerSettings({
      ...base,
      PORT: "",
      LOG_LEVEL: "WARN",
      LOG_FORMAT: "json",
      GHE_HOST: "github.example.com",
      GHE_PROTOCOL: "http",
      AGENTFORGE_QUEUE_LEASE_MS: "20000",
      AGENTFORGE_HANDOFF_INTERVAL_MS: "0",
    } as unknown as NodeJS.ProcessEnv);
    expect(result.success && result.value).toMatchObject({
      port: 3000,
      host: "localhost",
      logLevel: "warn",
      logFormat: "json",
      baseUrl: "http://github.example.com/api/v3",
      leaseMs: 20_000,
      handOverIntervalMs: 0,
      hasRedis: false,
    });
  });

  it("names every missing credential and every bad value at once", async () => {
    const result = await readAppServerSettings({ PORT: "x" });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.missing).toEqual(["APP_ID", "PRIVATE_KEY or PRIVATE_KEY_PATH", "WEBHOOK_SECRET"]);
      expect(result.problems).toEqual(['PORT: expected a port number (0-65535), got "x"']);
    }
  });
});
