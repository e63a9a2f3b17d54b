import { existsSync, readFileSync } from "node:fs";

/** What a process can see of the container it may run in; tests pass their own. */
export interface ContainerFacts {
  /** Docker creates /.dockerenv in every container; Podman creates /run/.containerenv. */
  readonly hasContainerMarkerFile: boolean;
  /** The text of /proc/1/cgroup, or null when it cannot be read. */
  readonly initCgroup: string | null;
}

/** cgroup v1 paths name the engine (cgroup v2 shows only "0::/", hence the marker files too). */
const CONTAINER_CGROUP = /\/(docker|containerd|kubepods|libpod|lxc)[/.-]/;

export function readContainerFacts(): ContainerFacts {
  let initCgroup: string | null = null;
  try {
    initCgroup = readFileSync("/proc/1/cgroup", "utf8");
  } catch (error) {
    // Not Linux, or /proc hidden: nothing to learn from it; any other error is real.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "EACCES") throw error;
  }
  return {
    hasContainerMarkerFile: existsSync("/.dockerenv") || existsSync("/run/.containerenv"),
    initCgroup,
  };
}

export function isInContainer(facts: ContainerFacts): boolean {
  return (
    facts.hasContainerMarkerFile || (facts.initCgroup !== null && CONTAINER_CGROUP.test(facts.initCgroup))
  );
}
