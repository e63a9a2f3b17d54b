/**
 * How to run the image (Dockerfile) so that its sandbox works: the one list of `docker run` flags
 * that docs/deployment.md quotes (test/doors/cli/docker-run-flags.test.ts compares them) and that
 * `doctor` names when it finds the sandbox unavailable inside a container.
 */

/** What the image sets up; the Dockerfile must agree (test/e2e/github-app/dockerfile.test.ts). */
export const IMAGE_LAYOUT = {
  name: "agentforge",
  port: 3000,
  dataDir: "/data",
  userId: 10001,
  /** Where the command mounts the App's private key, read-only. */
  privateKeyPath: "/run/secrets/agentforge-private-key.pem",
} as const;

export type DockerRunFlagPurpose = "sandbox" | "setup network" | "process" | "service" | "private key";

export interface DockerRunFlag {
  /** The words, as typed after `docker run`. */
  readonly words: readonly string[];
  readonly purpose: DockerRunFlagPurpose;
  /** Why the image needs it. */
  readonly reason: string;
}

export const DOCKER_RUN_FLAGS: readonly DockerRunFlag[] = [
  {
    words: ["--init"],
    purpose: "process",
    reason:
      "a small init (tini) as PID 1 passes SIGTERM on to node, so a stop lets running tasks finish, and reaps the processes a sandboxed command leaves behind",
  },
  {
    words: ["--security-opt", "seccomp=unconfined"],
    purpose: "sandbox",
    reason:
      "Docker's default seccomp profile refuses unshare/clone of new namespaces (and mount, pivot_root) to a container without CAP_SYS_ADMIN; bubblewrap builds every sandbox in a new user namespace (bwrap: Creating new namespace failed: Operation not permitted)",
  },
  {
    words: ["--security-opt", "apparmor=unconfined"],
    purpose: "sandbox",
    reason:
      "Docker's default AppArmor profile (docker-default) denies mount, which bubblewrap needs to build the sandbox's file system (bwrap: Failed to make / slave: Permission denied)",
  },
  {
    words: ["--security-opt", "systempaths=unconfined"],
    purpose: "sandbox",
    reason:
      "Docker masks and write-protects paths in the container's /proc; the kernel then refuses a fresh /proc to a new user namespace, and every sandbox mounts one (bwrap: Can't mount proc on /newroot/proc: Operation not permitted)",
  },
  {
    words: ["--device", "/dev/net/tun"],
    purpose: "setup network",
    reason:
      "slirp4netns gives setup commands (npm ci...) their own network through the TUN device, which a container does not have by default",
  },
  {
    words: ["-p", `${IMAGE_LAYOUT.port}:${IMAGE_LAYOUT.port}`],
    purpose: "service",
    reason: `the webhook server listens on PORT, ${IMAGE_LAYOUT.port} in the image`,
  },
  {
    words: ["-v", `agentforge-data:${IMAGE_LAYOUT.dataDir}`],
    purpose: "service",
    reason: `the queue, checkpoints, traces and repository cache (AGENTFORGE_DATA_DIR=${IMAGE_LAYOUT.dataDir}) outlive the container`,
  },
  {
    words: ["--env-file", ".env"],
    purpose: "service",
    reason:
      "the one-line variables (APP_ID, WEBHOOK_SECRET, the model's); an env file holds one line per variable, so it cannot carry a PEM key",
  },
  {
    words: ["-v", `"$PWD/private-key.pem:${IMAGE_LAYOUT.privateKeyPath}:ro"`],
    purpose: "private key",
    reason: `the App's private key as GitHub generated it, mounted read-only; the container's user (uid ${IMAGE_LAYOUT.userId}) must be able to read it (chown ${IMAGE_LAYOUT.userId} private-key.pem, or chmod 0644). Or leave both key flags out and put PRIVATE_KEY=<the .pem in base64, one line> in .env`,
  },
  {
    words: ["-e", `PRIVATE_KEY_PATH=${IMAGE_LAYOUT.privateKeyPath}`],
    purpose: "private key",
    reason: "tells the App where the mounted key is",
  },
];

/** The `docker run` command of docs/deployment.md: one flag per line, the image last. */
export function renderDockerRunCommand(flags: readonly DockerRunFlag[] = DOCKER_RUN_FLAGS): string {
  const lines = ["docker run", ...flags.map((flag) => `  ${flag.words.join(" ")}`), `  ${IMAGE_LAYOUT.name}`];
  return lines.join(" \\\n");
}

/** The flags without which bubblewrap cannot build a sandbox inside a container, on one line. */
export function renderSandboxFlags(): string {
  return DOCKER_RUN_FLAGS.filter((flag) => flag.purpose === "sandbox")
    .map((flag) => flag.words.join(" "))
    .join(" ");
}
