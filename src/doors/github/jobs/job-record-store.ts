import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ensurePrivateDir } from "../../../core/persistence/index.js";
import { writeFileAtomic } from "../../../core/persistence/index.js";
import type { JobWorkspaceRecord, JobWorkspaceStore } from "./github-job.js";

/**
 * What the App remembers about the job of a running task outside the queue, in
 * `<dataDir>/tasks/<taskId>.json` (written atomically; removed when the task ends): the progress
 * comment it is editing and the workspace its agent run works in, with the run's id. The run's
 * trace is `<dataDir>/tasks/<taskId>.trace.jsonl`. A worker that picks the task up after a crash
 * uses the record to resume the run in place and to close the dead worker's comment.
 */
export interface JobRecord {
  readonly progressCommentId: number | null;
  readonly workspace: JobWorkspaceRecord | null;
}

const recordSchema = z.object({
  progressCommentId: z.number().int().nullable(),
  workspace: z
    .object({
      workspaceRoot: z.string(),
      gitDirectory: z.string().exactOptional(),
      readOnlyPaths: z.array(z.string()).exactOptional(),
      baseSha: z.string(),
      remoteBranchSha: z.string().nullable(),
      branch: z.string().nullable(),
      tracePath: z.string(),
      runId: z.string().exactOptional(),
    })
    .nullable(),
});

const TASK_ID_PATTERN = /^[A-Za-z0-9-]{1,100}$/;

export interface JobRecordStore {
  readonly tracePath: string;
  load(): Promise<JobRecord | null>;
  update(change: Partial<JobRecord>): Promise<void>;
  remove(): Promise<void>;
  /** The workspace half, in the shape the jobs use. */
  readonly workspaceStore: JobWorkspaceStore;
}

export function tasksDirOf(dataDir: string): string {
  return path.join(dataDir, "tasks");
}

export function openJobRecordStore(dataDir: string, taskId: string): JobRecordStore {
  if (!TASK_ID_PATTERN.test(taskId)) throw new Error(`not a usable task id: ${JSON.stringify(taskId)}`);
  const directory = tasksDirOf(dataDir);
  const file = path.join(directory, `${taskId}.json`);

  async function load(): Promise<JobRecord | null> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    const parsed = recordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  }

  async function write(change: Partial<JobRecord>): Promise<void> {
    const current = (await load()) ?? { progressCommentId: null, workspace: null };
    await ensurePrivateDir(directory);
    await writeFileAtomic(file, `${JSON.stringify({ ...current, ...change })}\n`);
  }

  // A task writes its comment id and its workspace at the same time (the comment starts beside the
  // checkout): each change reads what the one before it wrote, so neither is lost.
  let writes: Promise<unknown> = Promise.resolve();
  function inTurn<T>(step: () => Promise<T>): Promise<T> {
    const next = writes.then(step);
    // The caller gets the failure through `next`; the turn order only needs to know it ended.
    writes = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }
  const update = (change: Partial<JobRecord>): Promise<void> => inTurn(() => write(change));

  return {
    tracePath: path.join(directory, `${taskId}.trace.jsonl`),
    load,
    update,
    remove: () => inTurn(() => rm(file, { force: true })),
    workspaceStore: {
      load: async () => (await load())?.workspace ?? null,
      save: (record) => update({ workspace: record }),
      clear: () => update({ workspace: null }),
    },
  };
}

/** Workspaces still named by a task record: a restarted server must leave these for resuming. */
export async function listRecordedWorkspaces(dataDir: string): Promise<Set<string>> {
  const directory = tasksDirOf(dataDir);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    throw error;
  }
  const roots = new Set<string>();
  for (const name of names.filter((entry) => entry.endsWith(".json"))) {
    const parsed = recordSchema.safeParse(JSON.parse(await readFile(path.join(directory, name), "utf8")));
    if (parsed.success && parsed.data.workspace !== null) roots.add(parsed.data.workspace.workspaceRoot);
  }
  return roots;
}
