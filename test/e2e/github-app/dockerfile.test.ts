import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";

/**
 * Docker cannot run on the test machines, so the image is checked as text: the base, the
 * packages, the user, the health check and the command, each parsed from its instruction.
 */
function instructions(text: string): { name: string; value: string }[] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const space = line.indexOf(" ");
      return { name: line.slice(0, space).toUpperCase(), value: line.slice(space + 1).trim() };
    });
}

describe("Dockerfile", () => {
  const parsed = instructions(readFileSync("Dockerfile", "utf8"));
  const values = (name: string) => parsed.filter((entry) => entry.name === name).map((entry) => entry.value);

  it("builds on Node 24 with git, bubblewrap, the setup network's tools and certificates", () => {
    expect(values("FROM")).toEqual(["node:24-bookworm-slim"]);
    const install = values("RUN").find((run) => run.includes("bubblewrap")) ?? "";
    for (const name of ["git", "bubblewrap", "slirp4netns", "iproute2", "util-linux", "ca-certificates"])
      expect(install.split(/\s+/)).toContain(name);
    expect(values("RUN").some((run) => run.includes("npm ci --omit=dev"))).toBe(true);
  });

  it("runs as a non-root user, listens on all interfaces and checks /healthz", () => {
    const users = values("USER");
    expect(users.at(-1)).toBeDefined();
    expect(users.at(-1)).not.toBe("root");
    expect(values("ENV").join(" ")).toMatch(/HOST=0\.0\.0\.0/);
    expect(values("HEALTHCHECK").join(" ")).toContain("/healthz");
    expect(JSON.parse(values("CMD").at(-1)!)).toEqual(["node", "bin/agentforge.js", "serve"]);
  });

  it("keeps secrets and local state out of the build context", () => {
    const ignored = readFileSync(".dockerignore", "utf8")
      .split("\n")
      .map((line) => line.trim());
    for (const entry of [".env", "node_modules", ".git", "*.pem"]) expect(ignored).toContain(entry);
  });

  it("ships the runtime it starts with: tsx is a dependency, not a dev dependency", () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies["tsx"]).toBeDefined();
  });
});
