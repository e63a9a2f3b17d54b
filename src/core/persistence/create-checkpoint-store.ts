import { readdir, readFile } from "node:fs/promises";
import type { CompletedToolCall, RunCheckpoint, RunStatus } from "./run-checkpoint.js";
import { CHECKPOINT_SCHEMA, runCheckpointSchema } from "./run-checkpoint.js";
import { appendJsonLine, readJsonLines } from "./json-lines.js";
import { errnoCode, ioError, PersistenceError } from "./persistence-error.js";
import { ensurePrivateDir } from "./resolve-data-dir.js";
import type { RunJournal } from "./run-journal.js";
import { assertCallId, EMPTY_JOURNAL, interpretJournal, journalHeader } from "./run-journal.js";
import type { RunPaths } from "./run-paths.js";
import { runPaths, runsDir } from "./run-paths.js";
import { readVersioned, schemaTag } from "./schema-version.js";
import { validateId } from "./validate-id.js";
import { removeStaleTemporaryFiles, writeFileAtomic } from "./write-file-atomic.js";

/**
 * Checkpoints and tool-call journals of runs, under `<dataDir>/runs/<runId>/` (mode 0700, files
 * 0600). The loop saves a checkpoint after every model response and after every turn, and marks
 * each tool call started (before it runs) and completed (after). `loadForResume` merges the
 * journal into the checkpoint; `planResume` then decides what to reuse, what to run and what to
 * report as interrupted.
 */
export interface CheckpointSummary {
  readonly runId: string;
  readonly status: RunStatus;
  readonly turn: number;
  readonly updatedAt: string;
  readonly prompt: string;
}

export interface ResumeState {
  /** The checkpoint with every call completed after it was saved (from the journal) added. */
  readonly checkpoint: RunCheckpoint;
  readonly startedCallIds: ReadonlySet<string>;
  readonly problems: readonly string[];
}

export interface CheckpointStore {
  readonly dataDir: string;
  /** Creates the run's directories (and scratch) on first use. */
  prepareRun(runId: string): Promise<RunPaths>;
  save(runId: string, checkpoint: RunCheckpoint): Promise<void>;
  load(runId: string): Promise<RunCheckpoint>;
  /** Also removes temp files that a crash during a save left in the run's directory. */
  loadForResume(runId: string): Promise<ResumeState>;
  list(): Promise<{
    readonly checkpoints: readonly CheckpointSummary[];
    readonly problems: readonly string[];
  }>;
  markToolCallStarted(runId: string, callId: string, name?: string): Promise<void>;
  markToolCallCompleted(runId: string, callId: string, completed: CompletedToolCall): Promise<void>;
  readJournal(runId: string): Promise<RunJournal>;
}

export function createCheckpointStore(
  dataDir: string,
  clock: () => Date = () => new Date(),
): CheckpointStore {
  // Journal appends of one run are chained so the header is written once and lines never race.
  const journalQueues = new Map<string, Promise<void>>();
  const journalsWithHeader = new Set<string>();

  // Every save and journal line needs the run's directories; checking them each time cost eight
  // file-system calls per write, several times a turn. Once per run and store is enough.
  const preparedRuns = new Map<string, Promise<RunPaths>>();

  function prepareRun(runId: string): Promise<RunPaths> {
    const known = preparedRuns.get(runId);
    if (known) return known;
    const preparing = (async () => {
      const paths = runPaths(dataDir, runId);
      await ensurePrivateDir(dataDir);
      await ensurePrivateDir(runsDir(dataDir));
      await ensurePrivateDir(paths.dir);
      await ensurePrivateDir(paths.scratch);
      return paths;
    })();
    preparedRuns.set(runId, preparing);
    // A failed preparation is not remembered, so the next call tries again.
    preparing.catch(() => preparedRuns.delete(runId));
    return preparing;
  }

  async function appendToJournal(runId: string, entry: Record<string, unknown>): Promise<void> {
    const paths = await prepareRun(runId);
    const previous = journalQueues.get(runId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (!journalsWithHeader.has(runId)) {
        if (!(await hasJournalHeader(paths.journal))) {
          await appendJsonLine(paths.journal, journalHeader(runId, clock()));
        }
        journalsWithHeader.add(runId);
      }
      await appendJsonLine(paths.journal, entry);
    });
    journalQueues.set(
      runId,
      next.catch(() => undefined),
    );
    return next;
  }

  async function load(runId: string): Promise<RunCheckpoint> {
    const paths = runPaths(dataDir, runId);
    let text: string;
    try {
      text = await readFile(paths.checkpoint, "utf8");
    } catch (error) {
      if (errnoCode(error) === "ENOENT") {
        throw new PersistenceError(
          "NOT_FOUND",
          `no checkpoint for run ${runId} (looked in ${paths.checkpoint})`,
          {
            path: paths.checkpoint,
            cause: error,
          },
        );
      }
      throw ioError("read checkpoint", paths.checkpoint, error);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new PersistenceError("SCHEMA_INVALID", `${paths.checkpoint} is not valid JSON`, {
        path: paths.checkpoint,
        cause: error,
      });
    }
    const checkpoint = readVersioned(value, CHECKPOINT_SCHEMA, runCheckpointSchema, paths.checkpoint);
    if (checkpoint.runId !== runId) {
      throw new PersistenceError(
        "SCHEMA_INVALID",
        `${paths.checkpoint} belongs to run ${checkpoint.runId}, not ${runId}`,
        { path: paths.checkpoint },
      );
    }
    return checkpoint;
  }

  async function readJournal(runId: string): Promise<RunJournal> {
    const paths = runPaths(dataDir, runId);
    try {
      return interpretJournal(await readJsonLines(paths.journal), paths.journal);
    } catch (error) {
      if (error instanceof PersistenceError && error.code === "NOT_FOUND") return EMPTY_JOURNAL;
      throw error;
    }
  }

  return {
    dataDir,
    prepareRun,
    async save(runId, checkpoint) {
      if (checkpoint.runId !== runId) {
        throw new PersistenceError("INVALID_ID", `checkpoint of run ${checkpoint.runId} saved as ${runId}`);
      }
      const paths = await prepareRun(runId);
      const document = { schema: schemaTag(CHECKPOINT_SCHEMA), ...checkpoint };
      // Validate on the way out too: a checkpoint that cannot be read back is worse than an error now.
      const parsed = runCheckpointSchema.safeParse(document);
      if (!parsed.success) {
        throw new PersistenceError(
          "SCHEMA_INVALID",
          `refusing to save an invalid checkpoint for run ${runId}: ${parsed.error.issues[0]?.message ?? "invalid"} ` +
            `at ${parsed.error.issues[0]?.path.join(".") ?? "?"}`,
          { path: paths.checkpoint, cause: parsed.error },
        );
      }
      await writeFileAtomic(paths.checkpoint, `${JSON.stringify(document, null, 1)}\n`);
    },
    load,
    async loadForResume(runId) {
      const checkpoint = await load(runId);
      await removeStaleTemporaryFiles(runPaths(dataDir, runId).dir);
      const journal = await readJournal(runId);
      return {
        checkpoint: {
          ...checkpoint,
          completedToolCalls: { ...journal.completedToolCalls, ...checkpoint.completedToolCalls },
        },
        startedCallIds: journal.startedCallIds,
        problems: journal.problems,
      };
    },
    async list() {
      let names: string[];
      try {
        names = (await readdir(runsDir(dataDir), { withFileTypes: true }))
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name)
          .sort();
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return { checkpoints: [], problems: [] };
        throw ioError("list runs in", runsDir(dataDir), error);
      }
      const checkpoints: CheckpointSummary[] = [];
      const problems: string[] = [];
      for (const name of names) {
        const validation = validateId(name);
        if (!validation.success) {
          problems.push(`ignored ${name}: ${validation.error}`);
          continue;
        }
        try {
          const checkpoint = await load(name);
          checkpoints.push({
            runId: name,
            status: checkpoint.status,
            turn: checkpoint.turn,
            updatedAt: checkpoint.updatedAt,
            prompt: checkpoint.task.prompt,
          });
        } catch (error) {
          if (!(error instanceof PersistenceError)) throw error;
          // A run directory with no checkpoint yet (crashed before the first save) is not a problem.
          if (error.code !== "NOT_FOUND") problems.push(error.message);
        }
      }
      return { checkpoints, problems };
    },
    async markToolCallStarted(runId, callId, name) {
      assertCallId(callId);
      const entry: Record<string, unknown> = { type: "tool-call-started", callId, at: clock().toISOString() };
      if (name !== undefined) entry["name"] = name;
      await appendToJournal(runId, entry);
    },
    async markToolCallCompleted(runId, callId, completed) {
      assertCallId(callId);
      await appendToJournal(runId, {
        type: "tool-call-completed",
        callId,
        at: clock().toISOString(),
        call: completed,
      });
    },
    readJournal,
  };
}

async function hasJournalHeader(path: string): Promise<boolean> {
  try {
    return (await readJsonLines(path)).values.length > 0;
  } catch (error) {
    if (error instanceof PersistenceError && error.code === "NOT_FOUND") return false;
    throw error;
  }
}
