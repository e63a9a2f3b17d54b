import type { Database } from "better-sqlite3";

/**
 * Lets an idle worker's claim skip the write lock. A claim that found nothing stays right until
 * one of two things happens: a write (another connection's commit moves `PRAGMA data_version`;
 * this connection's own writes call `forget`), or time reaches the earliest moment something
 * comes due without a write (a delayed retry's `available_at`, a running task's lease expiry).
 * Until then a claim can answer null from memory instead of taking BEGIN IMMEDIATE.
 */
export interface EmptyClaimMemo {
  /** True when the last empty claim still holds at `at`. */
  isStillEmpty(at: number): boolean;
  /** Called inside the claim transaction that found nothing, so no commit can slip in between. */
  recordEmpty(at: number): void;
  /** This connection wrote something a claim might take (its own commits leave data_version alone). */
  forget(): void;
}

export function createEmptyClaimMemo(db: Database): EmptyClaimMemo {
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  // A lease counts as expired when lease_expires_at < now, hence the + 1.
  const nextDue = db
    .prepare(
      `SELECT MIN(due) FROM (
        SELECT MIN(available_at) AS due FROM tasks WHERE state = 'queued' AND available_at > ?
        UNION ALL SELECT MIN(lease_expires_at) + 1 FROM tasks WHERE state = 'running')`,
    )
    .pluck();
  let memo: { readonly version: number; readonly dueAt: number } | null = null;
  return {
    isStillEmpty(at) {
      if (memo === null || at >= memo.dueAt) return false;
      return (dataVersion.get() as number) === memo.version;
    },
    recordEmpty(at) {
      const due = nextDue.get(at) as number | null;
      memo = { version: dataVersion.get() as number, dueAt: due ?? Number.POSITIVE_INFINITY };
    },
    forget() {
      memo = null;
    },
  };
}
