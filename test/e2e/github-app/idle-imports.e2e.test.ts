import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import { REDIS_URL, removeKeys } from "../../queue/bullmq/redis-test-helpers.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { startAppProcess, stopWithSigterm } from "./app-processes.js";
import { fixSteps, OWNER, privateKey, PROJECT_FILES, REPO, script, WEBHOOK_SECRET } from "./app-fixture.js";

const RECORDER = pathToFileURL(
  path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "record-loaded-modules.mjs"),
).href;

/**
 * Packages an idle server on the embedded queue never uses. Each costs memory when loaded at
 * start (issue 17: idle serve ≤ 150 MB), so each loads behind a dynamic import where it is
 * first needed; a static import anywhere on serve's path puts it back on this list's failures.
 */
const LAZY_PACKAGES = [
  "bullmq",
  "ioredis",
  "smee-client",
  "@secretlint/core",
  "@secretlint/secretlint-rule-preset-recommend",
  "web-tree-sitter",
  "openai",
  "@modelcontextprotocol/sdk",
] as const;

/** The package a module URL belongs to: the part after its last node_modules/. */
function packageOf(url: string): string | null {
  const marker = "/node_modules/";
  const at = url.lastIndexOf(marker);
  if (at === -1) return null;
  const [scope, name] = url.slice(at + marker.length).split("/");
  if (scope === undefined) return null;
  return scope.startsWith("@") ? `${scope}/${name ?? ""}` : scope;
}

/**
 * `agentforge serve` as deployed, with a module recorder preloaded (NODE_OPTIONS --import): it
 * lists every module the process and its intake thread resolve, and the require cache at exit.
 * The server starts, answers /healthz and stops on SIGTERM; what it loaded is read afterwards.
 */
describe("what an idle agentforge serve loads", () => {
  let github: GitHubStandIn;
  let model: MockModelServer;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "agentforge-idle-imports-"));
    github = await startGitHubStandIn({ repositories: [{ owner: OWNER, name: REPO, files: PROJECT_FILES }] });
    model = await startMockModelServer({ script: script(fixSteps()), steps: "turn" });
  });

  afterAll(async () => {
    await model?.close();
    await github?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function loadedPackagesOfIdleServe(name: string, extraEnv: NodeJS.ProcessEnv): Promise<Set<string>> {
    const moduleLog = path.join(root, `${name}.modules.txt`);
    const serve = await startAppProcess("serve", name, {
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET,
      PORT: "0",
      HOST: "127.0.0.1",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-e2e-not-a-real-key-000000000000",
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: path.join(root, name),
      NODE_ENV: "production",
      NODE_OPTIONS: `--import=${RECORDER}`,
      AGENTFORGE_MODULE_LOG: moduleLog,
      ...extraEnv,
    });
    try {
      expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
    } finally {
      const stopped = await stopWithSigterm(serve, 15_000);
      expect(stopped.code).toBe(0);
    }
    const urls = readFileSync(moduleLog, "utf8").split("\n");
    return new Set(urls.map(packageOf).filter((entry) => entry !== null));
  }

  it("on SQLite: none of the packages only Redis, a webhook proxy, a scan, the bash parser or a task needs", async () => {
    const loaded = await loadedPackagesOfIdleServe("sqlite", {});
    // The recorder sees serve's own packages, ESM (probot) and CommonJS with a native addon (better-sqlite3).
    expect(loaded).toContain("probot");
    expect(loaded).toContain("better-sqlite3");
    expect(LAZY_PACKAGES.filter((name) => loaded.has(name))).toStrictEqual([]);
  });

  it("with REDIS_URL: BullMQ and ioredis, and still none of the others", async () => {
    const prefix = `agentforge-idle-${randomUUID().slice(0, 8)}`;
    try {
      const loaded = await loadedPackagesOfIdleServe("redis", {
        REDIS_URL,
        AGENTFORGE_QUEUE_PREFIX: prefix,
      });
      expect(loaded).toContain("bullmq");
      expect(loaded).toContain("ioredis");
      expect(LAZY_PACKAGES.filter((name) => loaded.has(name))).toStrictEqual(["bullmq", "ioredis"]);
    } finally {
      await removeKeys(prefix);
    }
  });
});
