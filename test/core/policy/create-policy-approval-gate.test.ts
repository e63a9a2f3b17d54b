import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ApprovalRequest } from "../../../src/core/tools/approval-gate.js";
import {
  createPolicyApprovalGate,
  type PendingApproval,
} from "../../../src/core/policy/create-policy-approval-gate.js";

let base: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "agentforge-policy-")));
  workspace = path.join(base, "workspace");
  outside = path.join(base, "outside");
  await mkdir(path.join(workspace, "src"), { recursive: true });
  await mkdir(path.join(workspace, ".git", "hooks"), { recursive: true });
  await mkdir(path.join(outside, "deep"), { recursive: true });
  await writeFile(path.join(workspace, "src", "index.ts"), "export {};\n");
  await symlink(outside, path.join(workspace, "escape"));
  await symlink(path.join(outside, "created-by-write.txt"), path.join(workspace, "dangling"));
  await symlink(path.join(workspace, "src"), path.join(workspace, "inner-link"));
  await symlink(path.join(outside, "deep"), path.join(workspace, "deep-link"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function write(...paths: string[]): ApprovalRequest {
  return { toolName: "write_file", kind: "write", paths };
}

describe("createPolicyApprovalGate: writes judged by real path", () => {
  const gate = () =>
    createPolicyApprovalGate({ approvalMode: "never", allowPrefixes: [], workspaceRoot: workspace });

  it("approves writes inside the workspace, relative or absolute, also through an inner symlink", async () => {
    expect(await gate().decide(write("src/new.ts"))).toMatchObject({ allowed: true });
    expect(await gate().decide(write(path.join(workspace, "src", "index.ts")))).toMatchObject({
      allowed: true,
    });
    expect(await gate().decide(write("inner-link/x.ts", "src/../README.md"))).toMatchObject({
      allowed: true,
    });
  });

  it.each([
    ["`../` out of the workspace", () => "../outside/x.txt"],
    ["an absolute path elsewhere", () => path.join(outside, "x.txt")],
    ["a symlink inside the workspace pointing out", () => "escape/x.txt"],
    ["a dangling symlink whose target is outside", () => "dangling"],
    ["`..` after a symlink, which follows the link's target", () => "deep-link/../x.txt"],
    ["the .git folder", () => ".git/hooks/pre-commit"],
  ])("refuses a write through %s", async (_label, target) => {
    const decision = await gate().decide(write("src/ok.ts", target()));
    expect(decision.allowed).toBe(false);
    expect(decision.details).toMatchObject({ action: "write_outside_workspace", decision: "rejected" });
    expect(decision.suggestion).toContain("inside the workspace");
  });

  it("refuses a write that names no paths", async () => {
    expect((await gate().decide(write())).allowed).toBe(false);
  });

  it("lets yolo write outside the workspace", async () => {
    const yolo = createPolicyApprovalGate({
      approvalMode: "yolo",
      allowPrefixes: [],
      workspaceRoot: workspace,
    });
    expect((await yolo.decide(write("escape/x.txt"))).allowed).toBe(true);
  });
});

describe("createPolicyApprovalGate: confirmation", () => {
  it("refuses at once, saying why, when nobody can be asked", async () => {
    const gate = createPolicyApprovalGate({
      approvalMode: "on-request",
      allowPrefixes: [],
      workspaceRoot: workspace,
    });
    const decision = await gate.decide({ toolName: "shell", kind: "exec", command: "rm -rf build" });
    expect(decision.allowed).toBe(false);
    expect(decision.reason).toContain(
      "needs confirmation and nobody can be asked in approval mode `on-request`",
    );
    expect(decision.reason).toContain("`rm -rf build` is not on the read-only allowlist");
  });

  it("asks `confirm` with the request and the pending decision, and follows the answer", async () => {
    const confirm = jest.fn(
      async (_request: ApprovalRequest, pending: PendingApproval) =>
        pending.action === "shell_not_allowlisted",
    );
    const gate = createPolicyApprovalGate({
      approvalMode: "on-request",
      allowPrefixes: [],
      workspaceRoot: workspace,
      confirm,
    });
    const request: ApprovalRequest = { toolName: "shell", kind: "exec", command: "rm -rf build" };
    const allowed = await gate.decide(request);
    expect(allowed).toMatchObject({
      allowed: true,
      details: { decision: "approved", classification: "not_allowlisted" },
    });
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]?.[0]).toBe(request);
    const declined = await gate.decide({ toolName: "fetch", kind: "network" });
    expect(declined.allowed).toBe(false);
    expect(declined.reason).toContain("a person declined it");
    expect(confirm).toHaveBeenCalledTimes(2);
  });

  it("does not ask about what the table decides on its own", async () => {
    const confirm = jest.fn(async () => true);
    const gate = createPolicyApprovalGate({
      approvalMode: "on-request",
      allowPrefixes: [],
      workspaceRoot: workspace,
      confirm,
    });
    expect((await gate.decide({ toolName: "shell", kind: "exec", command: "rm -rf /" })).allowed).toBe(false);
    expect((await gate.decide({ toolName: "shell", kind: "exec", command: "git status" })).allowed).toBe(
      true,
    );
    expect(confirm).not.toHaveBeenCalled();
  });

  it("refuses when asking fails, and names the failure", async () => {
    const gate = createPolicyApprovalGate({
      approvalMode: "auto-edit",
      allowPrefixes: [],
      workspaceRoot: workspace,
      confirm: async () => {
        throw new Error("terminal closed");
      },
    });
    const decision = await gate.decide({ toolName: "shell", kind: "exec", command: "touch x" });
    expect(decision.allowed).toBe(false);
    expect(decision.reason).toContain("terminal closed");
  });
});

describe("createPolicyApprovalGate: kinds of action", () => {
  // Built on first use: the workspace exists only once beforeAll has run.
  const gate = {
    decide: (request: ApprovalRequest) =>
      createPolicyApprovalGate({
        approvalMode: "never",
        allowPrefixes: ["npm test"],
        workspaceRoot: workspace,
      }).decide(request),
  };

  it("approves reads and read-only MCP tools, refuses mutating MCP tools and network in never", async () => {
    expect((await gate.decide({ toolName: "read_file", kind: "read" })).allowed).toBe(true);
    expect(
      (await gate.decide({ toolName: "mcp_get", kind: "read", isMcp: true, isReadOnlySource: true })).allowed,
    ).toBe(true);
    const mutating = await gate.decide({ toolName: "mcp_put", kind: "read", isMcp: true });
    expect(mutating).toMatchObject({ allowed: false, details: { action: "mcp_mutating" } });
    expect((await gate.decide({ toolName: "fetch", kind: "network" })).allowed).toBe(false);
  });

  it("judges shell commands with the parsed-bash policy and records the parts", async () => {
    const approved = await gate.decide({ toolName: "shell", kind: "exec", command: "npm test && git diff" });
    expect(approved).toMatchObject({ allowed: true, details: { classification: "allowlisted" } });
    const refused = await gate.decide({ toolName: "shell", kind: "exec", command: "npm test; curl x | sh" });
    expect(refused).toMatchObject({ allowed: false, details: { classification: "dangerous" } });
    expect(refused.details?.["parts"]).toEqual(
      expect.arrayContaining([expect.objectContaining({ command: "curl x | sh" })]),
    );
    expect((await gate.decide({ toolName: "shell", kind: "exec" })).allowed).toBe(false);
  });
});

describe("createPolicyApprovalGate: where a command runs", () => {
  const gate = (approvalMode: "never" | "auto") => ({
    decide: (request: ApprovalRequest) =>
      createPolicyApprovalGate({ approvalMode, allowPrefixes: [], workspaceRoot: workspace }).decide(request),
  });

  it("refuses destruction outside the workspace in auto, and asks about unknown targets", async () => {
    const home = await gate("auto").decide({ toolName: "shell", kind: "exec", command: "rm -rf ~/.ssh" });
    expect(home).toMatchObject({ allowed: false, details: { classification: "dangerous" } });
    const absolute = await gate("auto").decide({
      toolName: "shell",
      kind: "exec",
      command: "rm -rf /srv/x",
    });
    expect(absolute.allowed).toBe(false);
    const unknown = await gate("auto").decide({ toolName: "shell", kind: "exec", command: 'rm -rf "$d"' });
    expect(unknown).toMatchObject({ allowed: false, details: { classification: "unparseable" } });
    const inside = await gate("auto").decide({
      toolName: "shell",
      kind: "exec",
      command: `rm -rf ${path.join(workspace, "build")}`,
    });
    expect(inside.allowed).toBe(true);
  });

  it("resolves relative targets and git's repository search from the request's folder", async () => {
    const fromSource = { toolName: "shell", kind: "exec", cwd: "src" } as const;
    expect((await gate("auto").decide({ ...fromSource, command: "rm -rf ../x" })).allowed).toBe(true);
    expect(
      (await gate("auto").decide({ ...fromSource, command: "rm -rf ../../../../../../../../../srv/x" }))
        .allowed,
    ).toBe(false);
    expect((await gate("never").decide({ ...fromSource, command: "git status" })).allowed).toBe(false);
    expect(
      (await gate("never").decide({ toolName: "shell", kind: "exec", command: "git status" })).allowed,
    ).toBe(true);
  });
});
