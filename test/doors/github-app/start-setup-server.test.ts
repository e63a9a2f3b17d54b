import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { generateKeyPairSync } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseEnv } from "node:util";
import nock from "nock";
import { parse } from "yaml";
import { readAppServerSettings } from "../../../src/doors/github-app/read-app-server-settings.js";
import { startSetupServer, type SetupServer } from "../../../src/doors/github-app/start-setup-server.js";

const pem = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "pkcs1", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
}).privateKey;

/** The manifest the page posts to GitHub, read back out of its hidden field. */
function manifestOf(html: string): Record<string, unknown> {
  const value = /name="manifest" value="([^"]*)"/.exec(html)?.[1];
  if (value === undefined) throw new Error(`no manifest field in ${html}`);
  const text = value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  return JSON.parse(text) as Record<string, unknown>;
}

describe("the first-run setup page", () => {
  let dir: string;
  let setup: SetupServer | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-setup-"));
    copyFileSync(resolve("app.yml"), join(dir, "app.yml"));
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
  });
  afterEach(async () => {
    await setup?.stop();
    setup = null;
    nock.cleanAll();
    nock.enableNetConnect();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(env: NodeJS.ProcessEnv = {}): Promise<SetupServer> {
    setup = await startSetupServer({ env, cwd: dir, port: 0, host: "127.0.0.1" });
    return setup;
  }

  it("registers this server's webhook path, never its root or app.yml's placeholder", async () => {
    const { url } = await start();
    const html = await (await fetch(`${url}/probot`)).text();
    const manifest = manifestOf(html);
    const appYml = parse(readFileSync(resolve("app.yml"), "utf8")) as Record<string, unknown>;
    expect(manifest["hook_attributes"]).toEqual({ url: `${url}/api/github/webhooks`, active: true });
    expect(manifest["redirect_url"]).toBe(`${url}/probot/setup`);
    expect(manifest["default_events"]).toEqual(appYml["default_events"]);
    expect(manifest["default_permissions"]).toEqual(appYml["default_permissions"]);
    expect(manifest["public"]).toBe(false);
    expect(html).toContain('action="https://github.com/settings/apps/new"');
    // A localhost URL never receives GitHub's webhooks: the page says how to proxy them.
    expect(html).toContain("Set WEBHOOK_PROXY_URL");
  });

  it("registers the WEBHOOK_PROXY_URL channel when one is set, and the host a proxy forwarded", async () => {
    const { url } = await start({ WEBHOOK_PROXY_URL: "https://smee.io/agentforge-test-channel" });
    const html = await (
      await fetch(`${url}/probot`, {
        headers: { "x-forwarded-proto": "https", "x-forwarded-host": "agentforge.example.org" },
      })
    ).text();
    const manifest = manifestOf(html);
    expect(manifest["hook_attributes"]).toEqual({
      url: "https://smee.io/agentforge-test-channel",
      active: true,
    });
    expect(manifest["redirect_url"]).toBe("https://agentforge.example.org/probot/setup");
    expect(html).not.toContain("Set WEBHOOK_PROXY_URL");
  });

  it("trades GitHub's code for the app's credentials and writes them to .env, keeping other lines", async () => {
    writeFileSync(join(dir, ".env"), "# mine\nLOG_LEVEL=debug\nAPP_ID=old\n");
    const scope = nock("https://api.github.com").post("/app-manifests/code123/conversions").reply(201, {
      id: 4711,
      slug: "agentforge-test",
      html_url: "https://github.com/apps/agentforge-test",
      pem,
      webhook_secret: "hook-secret",
      client_id: "Iv1.abc",
      client_secret: "client-secret",
    });
    const { url } = await start();
    const answer = await fetch(`${url}/probot/setup?code=code123`, { redirect: "manual" });
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("https://github.com/apps/agentforge-test/installations/new");
    expect(scope.pendingMocks()).toStrictEqual([]);
    const text = readFileSync(join(dir, ".env"), "utf8");
    expect(text.startsWith("# mine\nLOG_LEVEL=debug\nAPP_ID=4711\n")).toBe(true);
    expect(statSync(join(dir, ".env")).mode & 0o777).toBe(0o600);
    // What serve reads back from it is the same app.
    const settings = await readAppServerSettings(parseEnv(text));
    expect(settings.success && settings.value).toMatchObject({
      appId: "4711",
      privateKey: pem,
      webhookSecret: "hook-secret",
    });
  });

  it("says which request failed when GitHub refuses the code", async () => {
    nock("https://api.github.com")
      .post("/app-manifests/stale/conversions")
      .reply(404, { message: "Not Found" });
    const { url } = await start();
    const answer = await fetch(`${url}/probot/setup?code=stale`);
    expect(answer.status).toBe(502);
    expect(await answer.text()).toContain(
      "POST https://api.github.com/app-manifests/{code}/conversions answered 404: the code is single-use",
    );
  });
});
