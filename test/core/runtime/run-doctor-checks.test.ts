import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDoctorChecks } from "../../../src/core/runtime/run-doctor-checks.js";

describe("runDoctorChecks", () => {
  it("says when warm sandboxes are off because the kernel cannot list child processes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentforge-doctor-"));
    try {
      const env = { AGENTFORGE_DATA_DIR: join(dir, "data"), PATH: process.env.PATH ?? "" };
      const withChildren = await runDoctorChecks(env, { canListChildProcesses: () => true });
      expect(withChildren.find((check) => check.name === "sandbox")).toMatchObject({
        status: "ok",
        detail: expect.stringContaining("warm sandboxes on") as unknown as string,
      });
      const without = await runDoctorChecks(env, { canListChildProcesses: () => false });
      const sandbox = without.find((check) => check.name === "sandbox");
      expect(sandbox).toMatchObject({ status: "warning" });
      expect(sandbox?.detail).toContain("CONFIG_PROC_CHILDREN");
      expect(sandbox?.fix).toContain("CONFIG_PROC_CHILDREN");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
