import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { DOCKER_RUN_FLAGS, IMAGE_LAYOUT } from "../../../src/doors/cli/docker-run-flags.js";

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

  /** The instructions of the last stage, the image that runs. */
  const runtime = parsed.slice(parsed.findLastIndex((entry) => entry.name === "FROM"));
  const runtimeValues = (name: string) =>
    runtime.filter((entry) => entry.name === name).map((entry) => entry.value);

  it("builds on Node 24 with git, bubblewrap, the setup network's tools and certificates", () => {
    expect(values("FROM")).toEqual(["node:24-bookworm-slim AS build", "node:24-bookworm-slim"]);
    const install = runtimeValues("RUN").find((run) => run.includes("bubblewrap")) ?? "";
    for (const name of ["git", "bubblewrap", "slirp4netns", "iproute2", "util-linux", "ca-certificates"])
      expect(install.split(/\s+/)).toContain(name);
  });

  it("compiles in a build stage and runs only production dependencies and the compiled folder", () => {
    const buildStage = parsed.slice(
      0,
      parsed.findLastIndex((entry) => entry.name === "FROM"),
    );
    const buildRuns = buildStage.filter((entry) => entry.name === "RUN").map((entry) => entry.value);
    expect(buildRuns.some((run) => /\bnpm ci\b/.test(run) && !run.includes("--omit=dev"))).toBe(true);
    expect(buildRuns).toContain("npm run build");
    expect(buildStage.some((entry) => entry.name === "COPY" && entry.value === "src ./src")).toBe(true);

    expect(runtimeValues("RUN").some((run) => run.includes("npm ci --omit=dev"))).toBe(true);
    const copies = runtimeValues("COPY");
    expect(copies).toContain("--from=build /app/build ./build");
    // The runtime image has no TypeScript sources to fall back on.
    expect(copies.some((copy) => /(^|\s)src(\s|\/|$)/.test(copy))).toBe(false);
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
    for (const entry of [".env", "node_modules", ".git", "*.pem", "build"]) expect(ignored).toContain(entry);
  });

  it("needs no TypeScript loader at run time: tsx is a dev dependency only", () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.dependencies["tsx"]).toBeUndefined();
    expect(manifest.devDependencies["tsx"]).toBeDefined();
  });

  it("has the user, port, data folder and key path the documented docker run command uses", () => {
    const environment = runtimeValues("ENV").join(" ");
    expect(environment).toMatch(new RegExp(`\\bPORT=${IMAGE_LAYOUT.port}\\b`));
    expect(environment).toMatch(new RegExp(`\\bAGENTFORGE_DATA_DIR=${IMAGE_LAYOUT.dataDir}(\\s|$)`));
    expect(runtimeValues("EXPOSE")).toEqual([String(IMAGE_LAYOUT.port)]);
    expect(JSON.parse(runtimeValues("VOLUME").at(-1)!)).toEqual([IMAGE_LAYOUT.dataDir]);
    const userAdd = runtimeValues("RUN").find((run) => run.includes("useradd")) ?? "";
    const user = runtimeValues("USER").at(-1)!;
    expect(userAdd).toMatch(new RegExp(`--uid ${IMAGE_LAYOUT.userId} ${user}\\b`));
    expect(userAdd).toContain(`chown ${user}:${user} ${IMAGE_LAYOUT.dataDir}`);

    const words = DOCKER_RUN_FLAGS.flatMap((flag) => flag.words);
    expect(words).toContain(`${IMAGE_LAYOUT.port}:${IMAGE_LAYOUT.port}`);
    expect(words.some((word) => word.endsWith(`:${IMAGE_LAYOUT.dataDir}`))).toBe(true);
    expect(words).toContain(`PRIVATE_KEY_PATH=${IMAGE_LAYOUT.privateKeyPath}`);
    expect(words.some((word) => word.includes(`:${IMAGE_LAYOUT.privateKeyPath}:ro`))).toBe(true);
    // The key is mounted outside the data volume and outside the user's writable folders.
    expect(IMAGE_LAYOUT.privateKeyPath.startsWith(`${IMAGE_LAYOUT.dataDir}/`)).toBe(false);
    expect(JSON.parse(runtimeValues("CMD").at(-1)!)).toEqual(["node", "bin/agentforge.js", "serve"]);
  });
});
