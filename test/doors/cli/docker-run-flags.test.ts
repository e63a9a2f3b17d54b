import { describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import {
  DOCKER_RUN_FLAGS,
  renderDockerRunCommand,
  renderSandboxFlags,
} from "../../../src/doors/cli/docker-run-flags.js";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

describe("the docker run flags", () => {
  it("are quoted in docs/deployment.md exactly as rendered from their source", () => {
    const docs = readFileSync("docs/deployment.md", "utf8");
    expect(docs).toContain("```sh\n" + renderDockerRunCommand() + "\n```");
  });

  it("each carry a reason, and every documented flag is in the docs' table", () => {
    const docs = readFileSync("docs/deployment.md", "utf8");
    for (const flag of DOCKER_RUN_FLAGS) {
      expect(flag.reason.length).toBeGreaterThan(20);
      if (flag.purpose === "sandbox" || flag.purpose === "process" || flag.purpose === "setup network")
        expect(docs.split("\n")).toContainEqual(
          expect.stringMatching(new RegExp(`^\\| \`${escapeRegExp(flag.words.join(" "))}\` +\\|`)),
        );
    }
  });

  it("give bubblewrap user namespaces, mount and a /proc it can mount, plus an init", () => {
    expect(renderSandboxFlags()).toBe(
      "--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined",
    );
    const command = renderDockerRunCommand();
    expect(command).toMatch(/^docker run \\\n {2}--init \\\n/);
    expect(command).toContain("--device /dev/net/tun");
    expect(command.endsWith("  agentforge")).toBe(true);
  });

  it("pass the multi-line private key as a mounted file, not through the env file", () => {
    const words = DOCKER_RUN_FLAGS.flatMap((flag) => flag.words);
    const environment = words.filter((word, index) => words[index - 1] === "-e");
    expect(environment).toEqual(["PRIVATE_KEY_PATH=/run/secrets/agentforge-private-key.pem"]);
    expect(words).toContain('"$PWD/private-key.pem:/run/secrets/agentforge-private-key.pem:ro"');
  });
});

/**
 * The reason given for systempaths=unconfined, reproduced without Docker: in a mount namespace
 * where one /proc file is covered, as Docker covers /proc/timer_list, bubblewrap run by an
 * unprivileged user cannot mount the sandbox's /proc. Needs root (to make the namespace and
 * drop to another user), unshare, setpriv and bwrap.
 */
describe("a masked /proc, as Docker's default systempaths leaves it", () => {
  const tools = ["unshare", "setpriv", "bwrap"].filter(
    (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
  );
  const missing = process.getuid?.() !== 0 ? "not root" : tools.length > 0 ? `no ${tools.join(", ")}` : null;
  if (missing !== null)
    console.log(`skipped: the /proc masking check needs root, unshare, setpriv and bwrap (${missing})`);
  const maybe = missing === null ? it : it.skip;

  function sandboxAsNobody(mask: string): { status: number | null; stderr: string } {
    const bwrap = "bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev true";
    const script = `${mask}exec setpriv --reuid=65534 --regid=65534 --clear-groups ${bwrap}`;
    const result = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    return { status: result.status, stderr: result.stderr };
  }

  maybe("makes bubblewrap fail to mount /proc with the message the docs quote", () => {
    expect(sandboxAsNobody("")).toEqual({ status: 0, stderr: "" });
    const masked = sandboxAsNobody("mount --bind /dev/null /proc/timer_list && ");
    expect(masked.status).not.toBe(0);
    expect(masked.stderr).toContain("bwrap: Can't mount proc on /newroot/proc: Operation not permitted");
    const docs = readFileSync("docs/deployment.md", "utf8");
    expect(docs).toContain("bwrap: Can't mount proc on /newroot/proc: Operation not permitted");
  });
});
