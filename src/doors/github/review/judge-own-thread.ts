import { extractFingerprints } from "./fingerprint-finding.js";
import type { ReviewThread, ReviewThreadComment } from "./read-review-threads.js";

/** What later commits did to one file, read from `git diff <thread's commit> <head>`. */
export type FileChange =
  /** The diff does not touch the file. */
  | { readonly kind: "untouched" }
  | { readonly kind: "deleted" }
  /**
   * `changedLines`: old-file lines removed or rewritten; `insertedAfter`: old-file lines after
   * which new lines were added (0: at the top).
   */
  | {
      readonly kind: "modified";
      readonly changedLines: ReadonlySet<number>;
      readonly insertedAfter: ReadonlySet<number>;
    }
  /** The thread's commit is not in the checkout (a force push dropped it): nothing can be said. */
  | { readonly kind: "unknown" };

export type ThreadVerdict =
  | {
      readonly kind: "fixed";
      readonly because: "lines-changed" | "file-deleted";
      readonly fingerprint: string;
    }
  | {
      readonly kind: "keep";
      readonly because:
        | "not-own"
        | "no-fingerprint"
        | "resolved"
        | "refused"
        | "raised-again"
        | "old-side"
        | "lines-unchanged"
        | "unknown-commit";
    };

/**
 * A reply that refuses the finding. Decided on purpose to be narrow, so that a question ("is
 * this a bug?") is not taken for a refusal: the phrases below, as words, in a reply by anyone but
 * the bot, or a 👎 on the finding by anyone but the bot.
 */
const REFUSAL =
  /(?:^|[^\p{L}])(?:won'?t fix|wontfix|will not fix|not a bug|not an issue|false positive|by design|works as intended|working as intended|intended behaviou?r)(?:$|[^\p{L}])/iu;

/** True for a login of this bot, whichever API named it (REST adds `[bot]`, GraphQL does not). */
export function isOwnAuthor(
  comment: Pick<ReviewThreadComment, "author" | "authorType">,
  ownLogin: string,
): boolean {
  if (comment.author === null) return false;
  const login = comment.author.toLowerCase();
  const own = ownLogin.toLowerCase();
  if (login === own) return true;
  // A person may own the login `agentforge`; only a Bot account may stand for `agentforge[bot]`.
  return comment.authorType === "Bot" && own.endsWith("[bot]") && login === own.slice(0, -"[bot]".length);
}

export function isRefused(thread: Pick<ReviewThread, "comments">, ownLogin: string): boolean {
  const [first, ...replies] = thread.comments;
  if (first === undefined) return false;
  if (first.thumbsDownBy.some((login) => !isOwnAuthor({ author: login, authorType: null }, ownLogin)))
    return true;
  return replies.some((reply) => !isOwnAuthor(reply, ownLogin) && REFUSAL.test(reply.body));
}

function touchesRange(change: Extract<FileChange, { kind: "modified" }>, start: number, end: number): boolean {
  for (let line = start; line <= end; line += 1) if (change.changedLines.has(line)) return true;
  // Lines added inside the range or right next to it change it too: a guard added just above
  // the flagged line is the most common fix, and it leaves that line itself as it was.
  for (let line = start - 1; line <= end; line += 1) if (change.insertedAfter.has(line)) return true;
  return false;
}

/**
 * The "was this finding fixed" rule, for one thread. A thread is resolved as fixed only when all
 * hold: its first comment is this bot's and carries a finding's fingerprint; nobody resolved it
 * and nobody refused it; the new review did not raise the same fingerprint; it is on the new
 * side of the diff; and the commits since the thread's own commit deleted the file, changed one
 * of its lines or added lines inside or right next to them (applying its suggestion rewrites
 * exactly those lines). Anything else keeps it.
 */
export function judgeOwnThread(input: {
  readonly thread: ReviewThread;
  readonly ownLogin: string;
  /** Fingerprints of every finding the new review's reviewers raised, reported or not. */
  readonly raisedAgain: ReadonlySet<string>;
  readonly change: FileChange;
}): ThreadVerdict {
  const { thread, ownLogin, change } = input;
  const first = thread.comments[0];
  if (first === undefined || !isOwnAuthor(first, ownLogin)) return { kind: "keep", because: "not-own" };
  const fingerprint = extractFingerprints(first.body)[0];
  if (fingerprint === undefined) return { kind: "keep", because: "no-fingerprint" };
  if (thread.isResolved) return { kind: "keep", because: "resolved" };
  if (isRefused(thread, ownLogin)) return { kind: "keep", because: "refused" };
  if (input.raisedAgain.has(fingerprint)) return { kind: "keep", because: "raised-again" };
  if (thread.side !== "RIGHT") return { kind: "keep", because: "old-side" };
  switch (change.kind) {
    case "unknown":
      return { kind: "keep", because: "unknown-commit" };
    case "untouched":
      return { kind: "keep", because: "lines-unchanged" };
    case "deleted":
      return { kind: "fixed", because: "file-deleted", fingerprint };
    case "modified": {
      const end = thread.originalLine;
      if (end === null) return { kind: "keep", because: "lines-unchanged" };
      const start =
        thread.originalStartLine !== null && thread.originalStartLine < end ? thread.originalStartLine : end;
      return touchesRange(change, start, end)
        ? { kind: "fixed", because: "lines-changed", fingerprint }
        : { kind: "keep", because: "lines-unchanged" };
    }
  }
}
