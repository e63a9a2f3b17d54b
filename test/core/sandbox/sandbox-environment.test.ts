import { describe, expect, it } from "@jest/globals";
import { buildSandboxEnvironment, isSecretName } from "../../../src/core/sandbox/sandbox-environment.js";
import { SandboxError } from "../../../src/core/sandbox/sandbox-error.js";
import { readSandboxMode } from "../../../src/core/sandbox/sandbox-mode.js";

const hostEnv = {
  PATH: "/host/bin",
  LANG: "C.UTF-8",
  CI: "true",
  HOME: "/root",
  GITHUB_TOKEN: "ghs_x",
  OPENAI_API_KEY: "sk-x",
  WEBHOOK_SECRET: "w",
  REDIS_URL: "redis://:pw@localhost:6379",
  NODE_OPTIONS: "--max-old-space-size=100",
  GIT_AUTHOR_NAME: "Robot",
};

describe("buildSandboxEnvironment", () => {
  it("passes only the allowlist and fixes HOME, PATH, TERM", () => {
    const environment = buildSandboxEnvironment({ hostEnv, path: "/usr/bin:/bin" });
    const withoutGit = Object.fromEntries(
      Object.entries(environment).filter(([name]) => !name.startsWith("GIT_")),
    );
    expect(withoutGit).toEqual({
      LANG: "C.UTF-8",
      CI: "true",
      PATH: "/usr/bin:/bin",
      HOME: "/home/sandbox",
      USER: "nobody",
      LOGNAME: "nobody",
      TMPDIR: "/tmp",
      TERM: "dumb",
      NO_COLOR: "1",
    });
  });

  it("pins git's safe settings as environment config, which outranks every config file", () => {
    const environment = buildSandboxEnvironment({
      hostEnv,
      path: "/bin",
      extra: { GIT_CONFIG_COUNT: "0" },
    });
    const count = Number(environment["GIT_CONFIG_COUNT"]);
    const settings = Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        environment[`GIT_CONFIG_KEY_${index}`],
        environment[`GIT_CONFIG_VALUE_${index}`],
      ]),
    );
    expect(settings).toEqual({
      "safe.bareRepository": "explicit",
      "core.fsmonitor": "false",
      "core.hooksPath": "/dev/null",
      "core.untrackedCache": "false",
      "core.checkStat": "minimal",
    });
    expect(environment["GIT_CONFIG_NOSYSTEM"]).toBe("1");
  });

  it("adds names the operator lists and values set for the run", () => {
    const environment = buildSandboxEnvironment({
      hostEnv,
      path: "/bin",
      allowedNames: ["NODE_OPTIONS", "GIT_AUTHOR_NAME", "MISSING"],
      extra: { FOO: "bar" },
    });
    expect(environment["NODE_OPTIONS"]).toBe("--max-old-space-size=100");
    expect(environment["GIT_AUTHOR_NAME"]).toBe("Robot");
    expect(environment["FOO"]).toBe("bar");
    expect("MISSING" in environment).toBe(false);
  });

  it.each([
    "GITHUB_TOKEN",
    "OPENAI_API_KEY",
    "WEBHOOK_SECRET",
    "REDIS_URL",
    "PRIVATE_KEY",
    "NPM_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
  ])("refuses %s even when the operator lists it", (name) => {
    expect(isSecretName(name)).toBe(true);
    expect(() =>
      buildSandboxEnvironment({ hostEnv: { [name]: "v" }, path: "/bin", allowedNames: [name] }),
    ).toThrow(SandboxError);
  });

  it("refuses a value that looks like a token or a URL with a password under any name", () => {
    expect(() =>
      buildSandboxEnvironment({ hostEnv, path: "/bin", extra: { HARMLESS: "ghp_abcdef" } }),
    ).toThrow(/credential/);
    expect(() =>
      buildSandboxEnvironment({ hostEnv, path: "/bin", extra: { MIRROR: "https://user:pw@example.com/" } }),
    ).toThrow(/credential/);
  });
});

describe("readSandboxMode", () => {
  it("defaults to bwrap, accepts none only when said, rejects anything else", () => {
    expect(readSandboxMode({})).toEqual({ success: true, value: "bwrap" });
    expect(readSandboxMode({ AGENTFORGE_SANDBOX: "none" })).toEqual({ success: true, value: "none" });
    expect(readSandboxMode({ AGENTFORGE_SANDBOX: "off" }).success).toBe(false);
  });
});
