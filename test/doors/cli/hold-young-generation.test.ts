import { describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const probe = fileURLToPath(new URL("./fixtures/young-generation-probe.ts", import.meta.url));

interface ProbeResult {
  readonly before: number;
  readonly held: number;
  readonly released: number;
}

async function runProbe(mode: "plain" | "operator-flag"): Promise<ProbeResult> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", probe, mode], {
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  return JSON.parse(stdout.trim()) as ProbeResult;
}

describe("holdYoungGeneration", () => {
  it("keeps the new space at its size through a burst of long-lived objects, and lets it grow after release", async () => {
    const result = await runProbe("plain");
    expect(result.before).toBeGreaterThan(0);
    expect(result.held).toBe(result.before);
    // The same burst after release grows it as V8 does by default (to 32 MiB on this Node).
    expect(result.released).toBeGreaterThanOrEqual(4 * result.held);
  });

  it("leaves V8 alone when the operator passed the growth factor to node", async () => {
    const result = await runProbe("operator-flag");
    expect(result.held).toBeGreaterThanOrEqual(4 * result.before);
  });
});
