import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { doctorCommand } from "../../../src/doors/cli/doctor-command.js";
import { parseMockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";

interface Check {
  readonly name: string;
  readonly status: "ok" | "warning" | "problem";
  readonly detail: string;
  readonly fix?: string;
}

const privateKey = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "pkcs1", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
}).privateKey;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("agentforge doctor checks what it names", () => {
  let dir: string;
  let model: MockModelServer;
  let github: GitHubStandIn;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-doctor-"));
    const script = parseMockScript({ steps: [{ type: "text", text: "unused", model: "gpt-4.1-mini" }] });
    if (!script.success) throw new Error(script.error);
    model = await startMockModelServer({ script: script.value });
    github = await startGitHubStandIn({ repositories: [], appSlug: "doctor-test-app" });
  });
  afterAll(async () => {
    await model.close();
    await github.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function doctor(env: NodeJS.ProcessEnv, json = true) {
    let out = "";
    const io: CliIo = {
      stdout: (text) => void (out += text),
      stderr: (text) => void (out += text),
      isTty: false,
      env: {
        PATH: process.env.PATH,
        AGENTFORGE_DATA_DIR: join(dir, "data"),
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "sk-doctor-test-000000000000",
        AGENTFORGE_MODEL: "gpt-4.1-mini",
        ...env,
      },
      readStdin: async () => "",
    };
    const code = await doctorCommand({ json }, io);
    const checks = json ? (JSON.parse(out) as { checks: Check[] }).checks : [];
    const byName = (name: string): Check | undefined => checks.find((check) => check.name === name);
    return { code, out, byName };
  }

  const app = (): NodeJS.ProcessEnv => ({
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: "s",
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
  });

  it("passes with everything reachable: GET /app, a PING, GET /models with what it serves", async () => {
    const { code, byName } = await doctor({ ...app(), REDIS_URL: "redis://127.0.0.1:6379" });
    expect(byName("github app")).toEqual({
      name: "github app",
      status: "ok",
      detail: `GET http://${github.host}/api/v3/app: 200, the app "doctor-test-app"`,
    });
    expect(byName("webhook secret")).toMatchObject({ status: "ok" });
    expect(byName("redis")).toMatchObject({ status: "ok", detail: "PING redis://127.0.0.1:6379: PONG" });
    expect(byName("model")).toMatchObject({
      status: "ok",
      detail: `gpt-4.1-mini (AGENTFORGE_MODEL) at ${model.url}; GET /models answered 200: it serves mock-model, gpt-4.1-mini; context 128000 tokens (assumed: neither the operator config nor the server says); tools: not reported; price: unknown: costs are shown as unknown`,
    });
    expect(model.requests.some((request) => request.method === "GET" && request.path === "/v1/models")).toBe(
      true,
    );
    expect(byName("user namespaces")).toMatchObject({ status: "ok" });
    expect(byName("sandbox")?.detail).toContain("a command ran in a sandbox");
    expect(code).toBe(0);
  }, 60_000);

  it.each([
    [
      "APP_ID=abc",
      { APP_ID: "abc" },
      "github app",
      'APP_ID: expected the App ID, a number shown as "App ID" on the app\'s settings page, got "abc"',
    ],
    [
      "a private key that is not a key",
      { PRIVATE_KEY: "not-a-key" },
      "github app",
      "PRIVATE_KEY: PRIVATE_KEY is not a private key",
    ],
    ["no webhook secret", { WEBHOOK_SECRET: "" }, "webhook secret", "WEBHOOK_SECRET is not set"],
    [
      "a Redis that does not answer",
      { REDIS_URL: "redis://127.0.0.1:1" },
      "redis",
      "REDIS_URL: Redis does not answer at redis://127.0.0.1:1 (ECONNREFUSED)",
    ],
  ])(
    "fails on %s, with a fix",
    async (_, change, name, detail) => {
      const { code, byName } = await doctor({ ...app(), ...change });
      expect(byName(name)).toMatchObject({ status: "problem" });
      expect(byName(name)?.detail).toContain(detail);
      expect(byName(name)?.fix).toEqual(expect.any(String));
      expect(code).toBe(1);
    },
    60_000,
  );

  it("fails on a model endpoint that does not answer, and prints fix lines without --json", async () => {
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    const { code, out } = await doctor({ ...app(), OPENAI_BASE_URL: dead }, false);
    expect(out).toContain(
      `FAIL model: GET ${dead}/models got no answer (ECONNREFUSED)\n     fix: Start the model server`,
    );
    expect(code).toBe(1);
  }, 60_000);

  it("refused App credentials fail with the status GitHub answered", async () => {
    const { byName } = await doctor({
      ...app(),
      GHE_HOST: `127.0.0.1:${model.url.split(":")[2]!.split("/")[0]}`,
    });
    // The mock model answers /api/v3/app with 404: not this app's API.
    expect(byName("github app")).toMatchObject({ status: "problem" });
    expect(byName("github app")?.detail).toMatch(
      /^APP_ID or PRIVATE_KEY: GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/app answered 404/,
    );
  }, 60_000);
});
