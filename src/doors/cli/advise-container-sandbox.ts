import type { DoctorCheck } from "../../core/runtime/index.js";
import { renderSandboxFlags } from "./docker-run-flags.js";

/** What decides whether the container is the likely cause; doctor probes them, tests pass them. */
export interface ContainerSandboxFacts {
  readonly isInContainer: boolean;
  /** bubblewrap is installed but could not build a sandbox (not: missing, or turned off). */
  readonly isBubblewrapRefused: boolean;
}

/**
 * Inside a container, a bubblewrap that is installed and still cannot build a sandbox is most
 * often Docker's own confinement, which the host's sysctl advice does not reach: the sandbox
 * check's fix then starts with the `docker run` flags the image needs (docker-run-flags.ts, the
 * list docs/deployment.md quotes).
 */
export function adviseContainerSandbox(
  checks: readonly DoctorCheck[],
  facts: ContainerSandboxFacts,
): DoctorCheck[] {
  if (!facts.isInContainer || !facts.isBubblewrapRefused) return [...checks];
  const advice = `This is a container: run it with ${renderSandboxFlags()} (docs/deployment.md, "Docker").`;
  return checks.map((check) =>
    check.name === "sandbox" && check.status === "problem"
      ? { ...check, fix: check.fix === undefined ? advice : `${advice} ${check.fix}` }
      : check,
  );
}
