import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { runCli, type CliOutcome } from "../support/run-cli.js";
import { privateKey, WEBHOOK_SECRET } from "./app-fixture.js";

/** Nothing listens on port 1: a connection there is refused at once. */
const DEAD_REDIS = "redis://127.0.0.1:1";

/** A port that was free a moment ago (fetch refuses port 1 itself, before connecting). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("serve and worker stop at once, naming the cause, when a dependency is down at start", () => {
  let github: GitHubStandIn;
  let dataDir: string;
  let DEAD: string;
  beforeAll(async () => {
    DEAD = `127.0.0.1:${await freePort()}`;
    github = await startGitHubStandIn({ repositories: [] });
    dataDir = mkdtempSync(join(tmpdir(), "agentforge-fail-fast-"));
  });
  afterAll(async () => {
    await github.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = (change: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET,
    PORT: "0",
    HOST: "127.0.0.1",
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    OPENAI_BASE_URL: `http://${DEAD}/v1`,
    OPENAI_API_KEY: "sk-e2e-not-a-real-key-000000000000",
    AGENTFORGE_DATA_DIR: dataDir,
    NODE_ENV: "test",
    ...change,
  });

  /** Runs the command to its exit (the synchronisation point) and times it. */
  async function timed(args: string[], change: NodeJS.ProcessEnv): Promise<CliOutcome & { ms: number }> {
    const startedAt = performance.now();
    const outcome = await runCli(args, env(change));
    return { ...outcome, ms: performance.now() - startedAt };
  }

  it.each([
    ["serve", "REDIS_URL", "REDIS_URL: Redis does not answer at redis://127.0.0.1:1 (ECONNREFUSED)"],
    ["worker", "REDIS_URL", "REDIS_URL: Redis does not answer at redis://127.0.0.1:1 (ECONNREFUSED)"],
    ["serve", "GHE_HOST", "GHE_HOST: GET http://DEAD/api/v3/app got no answer (ECONNREFUSED)"],
    ["serve", "OPENAI_BASE_URL", "GET http://DEAD/v1/models got no answer (ECONNREFUSED)"],
  ])(
    "%s with a dead %s exits 69 with one message",
    async (command, variable, expected) => {
      const change: Record<string, NodeJS.ProcessEnv> = {
        REDIS_URL: { REDIS_URL: DEAD_REDIS },
        GHE_HOST: { GHE_HOST: DEAD },
        OPENAI_BASE_URL: {},
      };
      const outcome = await timed([command], change[variable]!);
      expect(outcome.code).toBe(69);
      expect(outcome.stderr).toContain(
        `agentforge ${command}: cannot start: ${expected.replace("DEAD", DEAD)}`,
      );
      expect(outcome.stderr).toMatch(/\n {2}fix: /);
      // One message and its fix line: no stack, no retry loop repeating the connection error.
      expect(outcome.stderr).not.toMatch(/\n\s+at /);
      expect(outcome.stderr.trim().split("\n")).toHaveLength(2);
      expect(outcome.stdout).not.toContain("listening");
      // Seconds, not a retry loop: most of it is loading the CLI on a busy machine.
      expect(outcome.ms).toBeLessThan(45_000);
    },
    60_000,
  );

  it("a model endpoint that answers 401 names OPENAI_API_KEY and exits 64", async () => {
    // The stand-in answers every route it does not know, /v1/models included, with 401 without its token.
    const outcome = await timed(["serve"], { OPENAI_BASE_URL: `${github.apiUrl}/v1` });
    expect(outcome.code).toBe(64);
    expect(outcome.stderr).toContain("the endpoint refused the key");
    expect(outcome.stderr).toContain("fix: Set OPENAI_API_KEY to a key this endpoint accepts.");
  }, 60_000);
});
