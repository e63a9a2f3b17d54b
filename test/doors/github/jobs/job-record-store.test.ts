import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJobRecordStore } from "../../../../src/doors/github/jobs/job-record-store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentforge-job-record-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a task's job record", () => {
  it("keeps both changes written at the same time (the comment id and the workspace)", async () => {
    const record = openJobRecordStore(dir, "task-1");
    const workspace = {
      workspaceRoot: join(dir, "w"),
      baseSha: "a".repeat(40),
      remoteBranchSha: null,
      branch: "agentforge/issue-7",
      tracePath: record.tracePath,
    };
    await Promise.all([record.update({ progressCommentId: 91 }), record.workspaceStore.save(workspace)]);
    expect(await record.load()).toEqual({ progressCommentId: 91, workspace });
  });
});
