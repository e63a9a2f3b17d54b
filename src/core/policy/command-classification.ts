/** How the policy sees one executed command, from most to least trusted. */
export type CommandClassification = "safe" | "allowlisted" | "not_allowlisted" | "dangerous" | "unparseable";

export type PolicyDecision = "approved" | "rejected" | "needs_confirmation";

/** One program the command line would run (or one construct the policy could not judge). */
export interface CommandPart {
  /** The source text of this part. */
  readonly command: string;
  /** Its words after quote removal; computed words keep their source text. */
  readonly words: readonly string[];
  readonly classification: CommandClassification;
  /** A predicate about the part, e.g. "is read-only" or "writes to `out.txt` through a redirection". */
  readonly reason: string;
}

export interface CommandDecision {
  readonly decision: PolicyDecision;
  readonly reason: string;
  readonly suggestion?: string;
  readonly classification: CommandClassification;
  readonly parts: readonly CommandPart[];
}

/**
 * Severity order used to combine parts: a command is only as trusted as its least trusted part.
 * Dangerous outranks unparseable so that a recognised destructive part is named even when
 * another part could not be read.
 */
const SEVERITY: Readonly<Record<CommandClassification, number>> = {
  safe: 0,
  allowlisted: 1,
  not_allowlisted: 2,
  unparseable: 3,
  dangerous: 4,
};

export function worseClassification(
  left: CommandClassification,
  right: CommandClassification,
): CommandClassification {
  return SEVERITY[right] > SEVERITY[left] ? right : left;
}

/** The least trusted part, the first one on ties; undefined for no parts. */
export function findWorstPart(parts: readonly CommandPart[]): CommandPart | undefined {
  let worst: CommandPart | undefined;
  for (const part of parts) {
    if (worst === undefined || SEVERITY[part.classification] > SEVERITY[worst.classification]) {
      worst = part;
    }
  }
  return worst;
}

/** A classification with the predicate that explains it. */
export interface Verdict {
  readonly classification: CommandClassification;
  readonly reason: string;
}

/** The least trusted verdict, the first one on ties. */
export function findWorstVerdict(verdicts: readonly (Verdict | undefined)[]): Verdict | undefined {
  let worst: Verdict | undefined;
  for (const verdict of verdicts) {
    if (
      verdict !== undefined &&
      (worst === undefined || SEVERITY[verdict.classification] > SEVERITY[worst.classification])
    ) {
      worst = verdict;
    }
  }
  return worst;
}
