import { afterAll, describe, expect, it } from "@jest/globals";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/doors/cli/main.js";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { createTraceWriter } from "../../../src/core/trace/create-trace-writer.js";
import { checkTunDevice } from "../../../src/core/sandbox/check-tun-device.js";
import { findSetupNetworkTools } from "../../../src/core/sandbox/start-setup-network.js";

function fakeIo(env: NodeJS.ProcessEnv = {}): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    isTty: false,
    env: { PATH: process.env.PATH, ...env },
    readStdin: async () => "",
    out: () => out,
    err: () => err,
  };
}

describe("the agentforge command line", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("shows examples and the exit codes in --help", async () => {
    const io = fakeIo();
    expect(await main(["--help"], io)).toBe(0);
    expect(io.out()).toContain("agentforge policy check --approval never");
    expect(io.out()).toContain("Exit codes");
  });

  it("answers an unknown command or a bad number with the usage exit code", async () => {
    expect(await main(["frobnicate"], fakeIo())).toBe(64);
    expect(await main(["run", "x", "--max-turns", "many"], fakeIo())).toBe(64);
  });

  it.each([
    [["--", "git", "log", "--oneline"], 0, "approved"],
    [["--", "git status; rm -rf build"], 1, "rejected"],
    [["--approval", "on-request", "--", "npm", "install"], 2, "needs_confirmation"],
    [["--allow", "npm test", "--", "npm test -- -t parser"], 0, "approved"],
    [["--allow", "npm test", "--", "npm testx"], 1, "rejected"],
  ])("policy check %j exits %i (%s) and prints the decision as JSON", async (args, code, decision) => {
    const io = fakeIo();
    expect(await main(["policy", "check", ...args], io)).toBe(code);
    expect(JSON.parse(io.out())).toMatchObject({ decision });
  });

  it("doctor says the sandbox is off when AGENTFORGE_SANDBOX=none and names the model fix", async () => {
    const io = fakeIo({ AGENTFORGE_SANDBOX: "none", AGENTFORGE_DATA_DIR: join(dir, "data") });
    expect(await main(["doctor", "--json"], io)).toBe(1);
    const checks = JSON.parse(io.out()).checks as { name: string; status: string; fix?: string }[];
    expect(checks.find((check) => check.name === "sandbox")).toMatchObject({ status: "warning" });
    expect(checks.find((check) => check.name === "model")?.fix).toContain("OPENAI_API_KEY");
  });

  it("doctor reports how setup commands reach the network", async () => {
    const shared = fakeIo({ AGENTFORGE_SETUP_NETWORK: "host", AGENTFORGE_DATA_DIR: join(dir, "data") });
    await main(["doctor", "--json"], shared);
    const sharedChecks = JSON.parse(shared.out()).checks as {
      name: string;
      status: string;
      detail: string;
    }[];
    expect(sharedChecks.find((check) => check.name === "setup network")).toMatchObject({ status: "warning" });
    // .ci/run installs slirp4netns, iproute2 and util-linux: the default is the isolated network.
    // Elsewhere the same check must name what is missing.
    const tools = await findSetupNetworkTools();
    const tun = process.getuid?.() === 0 ? { usable: true as const } : await checkTunDevice();
    const missing = !tools.success
      ? `missing ${tools.missing.join(", ")}`
      : !tun.usable
        ? tun.reason
        : undefined;
    const isolated = fakeIo({ AGENTFORGE_DATA_DIR: join(dir, "data") });
    await main(["doctor", "--json"], isolated);
    const isolatedChecks = JSON.parse(isolated.out()).checks as {
      name: string;
      status: string;
      detail: string;
    }[];
    if (missing !== undefined) {
      console.warn(`The isolated setup network is not available here (${missing}): checking the warning.`);
      expect(isolatedChecks.find((check) => check.name === "setup network")).toMatchObject({
        status: "warning",
        detail: expect.stringContaining(missing) as unknown as string,
      });
      return;
    }
    expect(isolatedChecks.find((check) => check.name === "setup network")).toMatchObject({
      status: "ok",
      detail: expect.stringContaining("isolated") as unknown as string,
    });
  });

  it("replays a trace as a story and writes the HTML report without calling anything", async () => {
    const trace = join(dir, "t.jsonl");
    const writer = createTraceWriter({
      path: trace,
      redact: (text) => text,
      header: {
        run_id: "r1",
        task: "run",
        user_goal: "say hi",
        start_time: new Date(0).toISOString(),
        model: "m",
        config_digest: "d",
      },
    });
    writer.onEvent({ type: "run-finished", turn: 1, exitReason: "final_answer", finalAnswer: "hi" });
    await writer.close({
      exit_reason: "final_answer",
      turns: 1,
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      cost_usd: 0,
    });
    const io = fakeIo();
    const html = join(dir, "report.html");
    expect(await main(["trace", trace, "--html", html], io)).toBe(0);
    expect(io.out()).toContain("Goal: say hi");
    expect(existsSync(html)).toBe(true);
    expect(readFileSync(html, "utf8")).toContain("say hi");
  });

  it("explains a missing trace file", async () => {
    const io = fakeIo();
    expect(await main(["trace", join(dir, "nope.jsonl")], io)).toBe(64);
    expect(io.err()).toContain("Check the path");
  });
});
