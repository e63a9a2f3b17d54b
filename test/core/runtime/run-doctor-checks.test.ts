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

  it("says when the kernel turns user namespaces off, with the sysctl that turns them on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentforge-doctor-"));
    try {
      const env = { AGENTFORGE_DATA_DIR: join(dir, "data"), PATH: process.env.PATH ?? "" };
      const off = await runDoctorChecks(env, {
        readKernelSetting: (path) =>
          Promise.resolve(
            path.endsWith("max_user_namespaces")
              ? "0"
              : path.endsWith("apparmor_restrict_unprivileged_userns")
                ? "1"
                : null,
          ),
      });
      const check = off.find((entry) => entry.name === "user namespaces");
      // Root may still build namespaces with these off; anyone else cannot.
      expect(check?.status).toBe(process.getuid?.() === 0 ? "warning" : "problem");
      expect(check?.detail).toContain(
        "user.max_user_namespaces=0, kernel.apparmor_restrict_unprivileged_userns=1",
      );
      expect(check?.fix).toContain("sysctl -w user.max_user_namespaces=15000");
      const on = await runDoctorChecks(env, { readKernelSetting: () => Promise.resolve("10") });
      expect(on.find((entry) => entry.name === "user namespaces")).toMatchObject({ status: "ok" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
