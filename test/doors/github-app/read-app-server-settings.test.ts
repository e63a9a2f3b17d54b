import { describe, expect, it } from "@jest/globals";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppServerSettings } from "../../../src/doors/github-app/start-app-server.js";

const { privateKey: pem, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});

const base = { APP_ID: "123", PRIVATE_KEY: pem, WEBHOOK_SECRET: "s" };

const KEYS_PAGE =
  "generate one on the app's settings page (Settings → Developer settings → GitHub Apps → Private keys)";

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
    // Unset: the cache keeps a spare tree for each of its four most recent repositories.
    expect(good.success && good.value.spareTrees).toBe(4);
    const bad = await readAppServerSettings({ ...base, AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY: "0" });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.problems.join(" ")).toContain("AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY");
  });
});

describe("the App's private key, however it is passed", () => {
  it.each([
    ["the PEM", pem],
    ["the PEM in quotes with \\n escapes, as a .env line holds it", `"${pem.replace(/\n/g, "\\n")}"`],
    ["the PEM in base64", Buffer.from(pem).toString("base64")],
    [
      "the PEM in base64 over several lines",
      Buffer.from(pem)
        .toString("base64")
        .replace(/(.{64})/g, "$1\n"),
    ],
  ])("accepts %s", async (_, key) => {
    const result = await readAppServerSettings({ ...base, PRIVATE_KEY: key });
    expect(result.success && result.value.privateKey).toBe(pem);
  });

  it("reads the file PRIVATE_KEY_PATH names, in PEM or base64", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentforge-key-"));
    try {
      for (const text of [pem, Buffer.from(pem).toString("base64")]) {
        writeFileSync(join(dir, "key.pem"), text);
        const result = await readAppServerSettings({
          ...base,
          PRIVATE_KEY: "",
          PRIVATE_KEY_PATH: join(dir, "key.pem"),
        });
        expect(result.success && result.value.privateKey).toBe(pem);
      }
      writeFileSync(join(dir, "key.pem"), "hello");
      const bad = await readAppServerSettings({
        ...base,
        PRIVATE_KEY: "",
        PRIVATE_KEY_PATH: join(dir, "key.pem"),
      });
      expect(!bad.success && bad.problems[0]).toMatch(
        /^PRIVATE_KEY_PATH: the file PRIVATE_KEY_PATH names is not a private key/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
      { AGENTFORGE_SPARE_TREES: "100" },
      "AGENTFORGE_SPARE_TREES: expected a whole number from 0 (no spares) to 64, got 100",
    ],
    [
      { AGENTFORGE_SPARE_TREES: "some" },
      'AGENTFORGE_SPARE_TREES: expected a whole number from 0 (no spares) to 64, got "some"',
    ],
    [
      { PRIVATE_KEY: "", PRIVATE_KEY_PATH: "/nonexistent/key.pem" },
      "PRIVATE_KEY_PATH: cannot read /nonexistent/key.pem (ENOENT); set it to the .pem file GitHub generated for the app",
    ],
    [
      { APP_ID: "abc" },
      'APP_ID: expected the App ID, a number shown as "App ID" on the app\'s settings page, got "abc"',
    ],
    [
      { PRIVATE_KEY: "not a key" },
      `PRIVATE_KEY: PRIVATE_KEY is not a private key: expected the .pem file's text ("-----BEGIN RSA PRIVATE KEY-----" …) or that text in base64; ${KEYS_PAGE}`,
    ],
    [
      { PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\\nx\\n-----END RSA PRIVATE KEY-----" },
      `PRIVATE_KEY: PRIVATE_KEY looks like a PEM but is not a usable private key (ERR_OSSL_UNSUPPORTED); paste the whole .pem file, or ${KEYS_PAGE}`,
    ],
    [
      { PRIVATE_KEY: publicKey },
      `PRIVATE_KEY: PRIVATE_KEY is a public key; the App signs with its private key: ${KEYS_PAGE}`,
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
      AGENTFORGE_SPARE_TREES: "0",
    } as unknown as NodeJS.ProcessEnv);
    expect(result.success && result.value).toMatchObject({
      spareTrees: 0,
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
