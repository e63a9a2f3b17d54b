import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DoctorCheck } from "../../../src/core/runtime/index.js";
import { clearSandboxDetectionCache } from "../../../src/core/sandbox/detect-sandbox.js";
import { adviseContainerSandbox } from "../../../src/doors/cli/advise-container-sandbox.js";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { isInContainer, type ContainerFacts } from "../../../src/doors/cli/detect-container.js";
import { doctorCommand } from "../../../src/doors/cli/doctor-command.js";
import { renderSandboxFlags } from "../../../src/doors/cli/docker-run-flags.js";

const FLAGS =
  "--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined";

describe("isInContainer", () => {
  it.each<[string, ContainerFacts, boolean]>([
    ["Docker's /.dockerenv", { hasContainerMarkerFile: true, initCgroup: "0::/\n" }, true],
    [
      "a cgroup v1 Docker path",
      { hasContainerMarkerFile: false, initCgroup: "12:pids:/docker/3f2a9c\n" },
      true,
    ],
    [
      "a Kubernetes pod",
      { hasContainerMarkerFile: false, initCgroup: "11:memory:/kubepods/burstable/pod1\n" },
      true,
    ],
    ["a host's systemd slice", { hasContainerMarkerFile: false, initCgroup: "0::/init.scope\n" }, false],
    ["no cgroup file", { hasContainerMarkerFile: false, initCgroup: null }, false],
  ])("%s", (_label, facts, expected) => {
    expect(isInContainer(facts)).toBe(expected);
  });
});

describe("adviseContainerSandbox", () => {
  const sandboxProblem: DoctorCheck = {
    name: "sandbox",
    status: "problem",
    detail: "bubblewrap 0.8.0 cannot create a sandbox here: bwrap: Creating new namespace failed",
    fix: "Allow user namespaces for bubblewrap.",
  };
  const model: DoctorCheck = {
    name: "model",
    status: "problem",
    detail: "no OPENAI_API_KEY",
    fix: "Set it.",
  };

  it("names the docker run flags, from their one source, in a container where bubblewrap was refused", () => {
    const [sandbox, other] = adviseContainerSandbox([sandboxProblem, model], {
      isInContainer: true,
      isBubblewrapRefused: true,
    });
    expect(renderSandboxFlags()).toBe(FLAGS);
    expect(sandbox?.fix).toBe(
      `This is a container: run it with ${FLAGS} (docs/deployment.md, "Docker"). Allow user namespaces for bubblewrap.`,
    );
    expect(other).toEqual(model);
  });

  it.each([
    ["outside a container", { isInContainer: false, isBubblewrapRefused: true }],
    ["when bubblewrap is missing rather than refused", { isInContainer: true, isBubblewrapRefused: false }],
  ])("leaves the fix alone %s", (_label, facts) => {
    expect(adviseContainerSandbox([sandboxProblem], facts)).toEqual([sandboxProblem]);
  });
});

/**
 * doctor end to end: a bwrap on PATH that fails as Docker's seccomp profile makes it fail, and the
 * container facts passed in. The real sandbox probe, the real checks, the printed fix line.
 */
describe("agentforge doctor in a container whose bubblewrap is refused", () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), "agentforge-doctor-container-"));
    mkdirSync(path.join(folder, "bin"));
    const bwrap = path.join(folder, "bin", "bwrap");
    writeFileSync(
      bwrap,
      '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1\n',
    );
    chmodSync(bwrap, 0o755);
    clearSandboxDetectionCache();
  });
  afterAll(() => {
    clearSandboxDetectionCache();
    rmSync(folder, { recursive: true, force: true });
  });

  async function doctorText(facts: ContainerFacts): Promise<string> {
    clearSandboxDetectionCache();
    let out = "";
    const io: CliIo = {
      stdout: (text) => void (out += text),
      stderr: (text) => void (out += text),
      isTty: false,
      env: {
        PATH: `${path.join(folder, "bin")}:${process.env.PATH ?? ""}`,
        HOME: folder,
        AGENTFORGE_DATA_DIR: path.join(folder, "data"),
        AGENTFORGE_CONFIG: "",
      },
      readStdin: async () => "",
    };
    await doctorCommand({}, io, () => facts);
    return out;
  }

  it("prints the flags on the sandbox's fix line inside a container, and not outside", async () => {
    const inside = await doctorText({ hasContainerMarkerFile: true, initCgroup: "0::/\n" });
    expect(inside).toMatch(
      /FAIL sandbox: bubblewrap cannot run: bubblewrap 0\.8\.0 cannot create a sandbox here: bwrap: Creating new namespace failed/,
    );
    expect(inside).toContain(
      `     fix: This is a container: run it with ${FLAGS} (docs/deployment.md, "Docker").`,
    );

    const outside = await doctorText({ hasContainerMarkerFile: false, initCgroup: "0::/init.scope\n" });
    expect(outside).toMatch(/FAIL sandbox: /);
    expect(outside).not.toContain("This is a container");
  }, 60_000);
});
