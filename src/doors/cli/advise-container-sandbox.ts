import type { DoctorCheck } from "../../core/runtime/index.js";
import { renderSandboxFlags } from "./docker-run-flags.js";

/** The checks whose failure, inside a container, usually means the container's confinement. */
const SANDBOX_CHECKS = new Set(["sandbox", "user namespaces"]);

/**
 * Inside a container, a sandbox that cannot start is most often Docker's own confinement, which
 * the host's sysctl advice does not reach: the fix then also names the `docker run` flags the
 * image needs (from docker-run-flags.ts, the list docs/deployment.md quotes).
 */
export function adviseContainerSandbox(checks: readonly DoctorCheck[], isInContainer: boolean): DoctorCheck[] {
  if (!isInContainer) return [...checks];
  const flags = renderSandboxFlags();
  return checks.map((check) =>
    check.status === "problem" && SANDBOX_CHECKS.has(check.name)
      ? {
          ...check,
          fix: `This is a container: run it with ${flags} (docs/deployment.md, Docker). ${check.fix ?? ""}`.trim(),
        }
      : check,
  );
}
