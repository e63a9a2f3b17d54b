import { describe } from "@jest/globals";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { detectSandbox } from "../../../src/core/sandbox/detect-sandbox.js";

/** bwrap is installed by .ci/run, so these tests run in CI; they skip only on a machine without it. */
export const detection = await detectSandbox();
export const describeWithBwrap = detection.available ? describe : describe.skip;
if (!detection.available) {
  console.warn(
    `Skipping bubblewrap sandbox tests: ${detection.problem ?? "unavailable"} Fix: ${detection.fix ?? ""}`,
  );
}

export async function makeTempDirectory(prefix: string): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export async function removeDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}
