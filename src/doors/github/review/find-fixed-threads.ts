import type { HostRepository } from "../../../core/git/index.js";
import { diffBetweenCommits } from "./diff-range-for-synchronize.js";
import { judgeOwnThread, type FileChange, type ThreadVerdict } from "./judge-own-thread.js";
import type { ReviewThread } from "./read-review-threads.js";
import { readFileChange } from "./read-file-changes.js";

export interface FixedThread {
  readonly thread: ReviewThread;
  readonly verdict: Extract<ThreadVerdict, { kind: "fixed" }>;
  /** The link to the finding's comment, for the review body. */
  readonly url: string;
}

/** The commits this bot's open finding threads were made on: the checkout must hold their blobs. */
export function threadCommits(threads: readonly ReviewThread[]): string[] {
  return [
    ...new Set(
      threads.flatMap((thread) => (thread.isResolved ? [] : [thread.comments[0]?.originalCommit ?? null])),
    ),
  ].filter((commit): commit is string => commit !== null);
}

/**
 * This bot's finding threads the commits up to `headSha` fixed (judgeOwnThread), with one
 * `git diff` per commit the threads were made on, read from the local checkout.
 */
export async function findFixedThreads(input: {
  readonly threads: readonly ReviewThread[];
  readonly ownLogin: string;
  readonly raisedAgain: ReadonlySet<string>;
  readonly repository: HostRepository;
  readonly headSha: string;
  readonly signal: AbortSignal;
}): Promise<FixedThread[]> {
  const byCommit = new Map<string, ReviewThread[]>();
  for (const thread of input.threads) {
    const commit = thread.comments[0]?.originalCommit;
    // Only open threads of this bot are worth a diff; judgeOwnThread checks the rest again.
    if (commit === null || commit === undefined || thread.isResolved) continue;
    byCommit.set(commit, [...(byCommit.get(commit) ?? []), thread]);
  }
  const fixed: FixedThread[] = [];
  for (const [commit, threads] of byCommit) {
    const paths = [...new Set(threads.map((thread) => thread.path))];
    const diff =
      commit === input.headSha
        ? ""
        : await diffBetweenCommits({
            repository: input.repository,
            from: commit,
            to: input.headSha,
            paths,
            signal: input.signal,
          });
    for (const thread of threads) {
      const change: FileChange = diff === null ? { kind: "unknown" } : readFileChange(diff, thread.path);
      const verdict = judgeOwnThread({
        thread,
        ownLogin: input.ownLogin,
        raisedAgain: input.raisedAgain,
        change,
      });
      if (verdict.kind === "fixed") fixed.push({ thread, verdict, url: thread.comments[0]?.url ?? "" });
    }
  }
  return fixed;
}
