import { readdir, readFile, rm } from "node:fs/promises";
import type { CompletedToolCall, RunCheckpoint, RunStatus } from "./run-checkpoint.js";
import { applyCheckpointDeltas } from "./apply-checkpoint-deltas.js";
import { newGeneration, parseSnapshot, serializeSnapshot } from "./checkpoint-snapshot.js";
import {
  createCheckpointLog,
  type CheckpointLog,
  type CheckpointLogOptions,
} from "./create-checkpoint-log.js";
import { createGroupCommitLog, type GroupCommitLog } from "./create-group-commit-log.js";
import { readJsonLines } from "./json-lines.js";
import { errnoCode, ioError, PersistenceError } from "./persistence-error.js";
import { ensurePrivateDir } from "./resolve-data-dir.js";
import type { RunJournal } from "./run-journal.js";
import { assertCallId, EMPTY_JOURNAL, interpretJournal, journalHeader } from "./run-journal.js";
import type { RunPaths } from "./run-paths.js";
import { runPaths, runsDir } from "./run-paths.js";
import { validateId } from "./validate-id.js";
import { removeStaleTemporaryFiles, writeFileAtomic } from "./write-file-atomic.js";

/**
 * Checkpoints and tool-call journals of runs, under `<dataDir>/runs/<runId>/` (mode 0700, files
 * 0600). The loop records a checkpoint after every model response and after every turn through a
 * CheckpointLog (a snapshot plus appended deltas), and marks each tool call started (before it
 * runs) and completed (after). `load` replays the deltas onto the snapshot; `loadForResume` also
 * merges the journal; `planResume` then decides what to reuse, what to run and what to report as
 * interrupted.
 *
 * Journal lines reach the file before the tool runs (a killed process loses none) and reach the
 * disk by a background group flush; `closeRun` waits for it.
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
  /** Writes a complete snapshot at once (and drops the deltas it supersedes). */
  save(runId: string, checkpoint: RunCheckpoint): Promise<void>;
  /** For a running loop: the first record is a snapshot, later ones small deltas. */
  openCheckpointLog(runId: string, options?: CheckpointLogOptions): Promise<CheckpointLog>;
  load(runId: string): Promise<RunCheckpoint>;
  /** Also removes temp files that a crash during a save left in the run's directory. */
  loadForResume(runId: string): Promise<ResumeState>;
  /** The same state, only read: safe while the run is still writing (nothing is removed). */
  readResumeState(runId: string): Promise<ResumeState>;
  list(): Promise<{
    readonly checkpoints: readonly CheckpointSummary[];
    readonly problems: readonly string[];
  }>;
  markToolCallStarted(runId: string, callId: string, name?: string): Promise<void>;
  markToolCallCompleted(runId: string, callId: string, completed: CompletedToolCall): Promise<void>;
  readJournal(runId: string): Promise<RunJournal>;
  /** Flushes and closes the run's journal; later marks reopen it. */
  closeRun(runId: string): Promise<void>;
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

  const journals = new Map<string, GroupCommitLog>();

  /** Journal appends still waiting in a run's queue (opening the journal, writing its header). */
  const queuedAppends = new Map<string, number>();

  function appendToJournal(runId: string, entry: Record<string, unknown>): Promise<void> {
    // Once a run's journal is open and nothing waits before this line, it is written at once: the
    // line is in the file when this returns, as it would be after the queue.
    const open = journals.get(runId);
    if (open !== undefined && (queuedAppends.get(runId) ?? 0) === 0) {
      try {
        open.append(entry);
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    queuedAppends.set(runId, (queuedAppends.get(runId) ?? 0) + 1);
    // Chained so that the header is written once, before any entry, even for concurrent marks.
    const previous = journalQueues.get(runId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const paths = await prepareRun(runId);
        let journal = journals.get(runId);
        if (journal === undefined) {
          const hasHeader = journalsWithHeader.has(runId) || (await hasJournalHeader(paths.journal));
          journal = createGroupCommitLog(paths.journal);
          journals.set(runId, journal);
          if (!hasHeader) journal.append(journalHeader(runId, clock()));
          journalsWithHeader.add(runId);
        }
        journal.append(entry);
      })
      .finally(() => {
        const left = (queuedAppends.get(runId) ?? 1) - 1;
        if (left === 0) queuedAppends.delete(runId);
        else queuedAppends.set(runId, left);
      });
    journalQueues.set(
      runId,
      next.catch(() => undefined),
    );
    return next;
  }

  async function loadWithProblems(
    runId: string,
  ): Promise<{ readonly checkpoint: RunCheckpoint; readonly problems: readonly string[] }> {
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
    const snapshot = parseSnapshot(text, runId, paths.checkpoint);
    if (snapshot.generation === null) return { checkpoint: snapshot.checkpoint, problems: [] };
    let deltaText: string;
    try {
      deltaText = await readFile(paths.checkpointDelta, "utf8");
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return { checkpoint: snapshot.checkpoint, problems: [] };
      throw ioError("read checkpoint deltas", paths.checkpointDelta, error);
    }
    const replayed = applyCheckpointDeltas(snapshot, deltaText, paths.checkpointDelta);
    return { checkpoint: replayed.checkpoint, problems: replayed.problems };
  }

  /** The checkpoint with every call the journal saw complete after it, and the started calls. */
  async function readResumeState(runId: string): Promise<ResumeState> {
    const { checkpoint, problems } = await loadWithProblems(runId);
    const journal = await readJournal(runId);
    return {
      checkpoint: {
        ...checkpoint,
        completedToolCalls: { ...journal.completedToolCalls, ...checkpoint.completedToolCalls },
      },
      startedCallIds: journal.startedCallIds,
      problems: [...problems, ...journal.problems],
    };
  }

  async function load(runId: string): Promise<RunCheckpoint> {
    return (await loadWithProblems(runId)).checkpoint;
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
      const paths = await prepareRun(runId);
      await writeFileAtomic(
        paths.checkpoint,
        serializeSnapshot(runId, checkpoint, newGeneration(), paths.checkpoint),
      );
      // The new generation already makes older deltas inapplicable; removing them keeps the dir tidy.
      await rm(paths.checkpointDelta, { force: true });
    },
    async openCheckpointLog(runId, options) {
      return createCheckpointLog(await prepareRun(runId), runId, options);
    },
    load,
    async loadForResume(runId) {
      const state = await readResumeState(runId);
      await removeStaleTemporaryFiles(runPaths(dataDir, runId).dir);
      return state;
    },
    readResumeState,
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
      return appendToJournal(runId, entry);
    },
    async markToolCallCompleted(runId, callId, completed) {
      assertCallId(callId);
      return appendToJournal(runId, {
        type: "tool-call-completed",
        callId,
        at: clock().toISOString(),
        call: completed,
      });
    },
    readJournal,
    async closeRun(runId) {
      await journalQueues.get(runId);
      const journal = journals.get(runId);
      journals.delete(runId);
      journalQueues.delete(runId);
      await journal?.close();
    },
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
