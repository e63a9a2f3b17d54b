import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { findPersistedCredentials } from "../../../src/doors/action/find-persisted-credentials.js";

describe("findPersistedCredentials", () => {
  let workspace: string;

  beforeEach(async () => {
    workspace = await mkdtemp(path.join(os.tmpdir(), "agentforge-credentials-"));
    execFileSync("git", ["init", "-q", workspace]);
  });

  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const gitConfig = (...args: string[]): void =>
    void execFileSync("git", ["-C", workspace, "config", "--local", ...args]);

  it("finds nothing in a plain checkout or a folder that is not one", async () => {
    gitConfig("remote.origin.url", "https://github.com/octo/hello.git");
    expect(await findPersistedCredentials(workspace)).toBeNull();
    expect(await findPersistedCredentials(path.join(workspace, "missing"))).toBeNull();
  });

  it("finds the header actions/checkout persists", async () => {
    gitConfig("http.https://github.com/.extraheader", "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0");
    expect(await findPersistedCredentials(workspace)).toContain("extraheader");
  });

  it("finds a password in a remote URL", async () => {
    gitConfig("remote.origin.url", "https://x-access-token:ghs_secret@github.com/octo/hello.git");
    expect(await findPersistedCredentials(workspace)).toContain("password");
  });
});
