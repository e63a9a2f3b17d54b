import type { ApprovalMode } from "./approval-mode.js";
import { parseAllowPrefix, type ParseAllowPrefixResult } from "./allow-prefix.js";
import {
  findWorstPart,
  type CommandClassification,
  type CommandDecision,
  type CommandPart,
} from "./command-classification.js";
import { decideApproval, shellAction } from "./decide-approval.js";
import { createCommandLocation } from "./command-location.js";
import { judgeScript } from "./judge-script.js";
import { loadBashParser, type BashParser } from "./load-bash-parser.js";

export interface EvaluateCommandOptions {
  readonly approvalMode: ApprovalMode;
  /** Operator and repository prefixes such as `npm test`; entries that are not plain words are ignored. */
  readonly allowPrefixes: readonly string[];
  /** Where the command runs; defaults to the current directory as both root and folder. */
  readonly place?: CommandPlace;
}

/** The workspace a command may change, and the folder it starts in (the workspace root by default). */
export interface CommandPlace {
  readonly workspaceRoot: string;
  readonly cwd?: string;
}

/** Prefixes come from config and repeat on every call; parsing them once keeps a decision cheap. */
const parsedPrefixes = new Map<string, ParseAllowPrefixResult>();
const MAX_CACHED_PREFIXES = 1000;
/** Judging time grows with the size of the tree; a longer command line is refused rather than parsed. */
export const MAX_COMMAND_LENGTH = 16_384;

const SUGGESTIONS = {
  not_allowlisted: "Use a read-only command, or ask the operator to add a prefix to the allowed commands.",
  dangerous:
    "This command is destructive and is refused; do the task with narrower commands inside the workspace.",
  unparseable:
    "Write the command so that it can be checked: a literal command name, `$( … )` rather than backquotes, no eval, arithmetic or array subscripts on variables, and paths that are literal and inside the workspace.",
} as const;

/** Decides a shell command: parse it, judge every part, then look the worst part up in the approval table. */
export async function evaluateCommand(
  command: string,
  options: EvaluateCommandOptions,
): Promise<CommandDecision> {
  const parser = await loadBashParser();
  return evaluateCommandWith(parser, command, options);
}

/** What the command is, independent of the approval mode. */
export interface CommandJudgement {
  readonly classification: CommandClassification;
  readonly parts: readonly CommandPart[];
  /** The worst part named with its reason, e.g. "`rm x` (part 2 of `ls; rm x`) is not on the ...". */
  readonly summary: string;
  readonly suggestion?: string;
}

/** Parses and judges a command line; synchronous once the parser is loaded. */
export function judgeCommandLine(
  parser: BashParser,
  command: string,
  allowPrefixStrings: readonly string[],
  place: CommandPlace = { workspaceRoot: process.cwd() },
): CommandJudgement {
  const allowPrefixes = allowPrefixStrings.flatMap((prefix) => {
    const parsed = parsedPrefixes.get(prefix) ?? parseAllowPrefix(parser, prefix);
    if (parsedPrefixes.size < MAX_CACHED_PREFIXES) {
      parsedPrefixes.set(prefix, parsed);
    }
    return parsed.success ? [parsed.value] : [];
  });
  const trimmed = command.trim();
  const parts = judgeParts(command, trimmed, () =>
    judgeScript(command, {
      parser,
      allowPrefixes,
      depth: 0,
      inheritedAssignments: [],
      dialect: "bash",
      location: createCommandLocation(place.workspaceRoot, place.cwd),
    }),
  );
  const worst = findWorstPart(parts) as CommandPart;
  if (worst.classification === "safe" && parts.length > 1) {
    return {
      classification: "safe",
      parts,
      summary: `\`${trimmed}\` only runs read-only commands (${parts.length} parts)`,
    };
  }
  const subject =
    worst.command !== trimmed
      ? `\`${abbreviate(worst.command)}\` (part ${parts.indexOf(worst) + 1} of \`${abbreviate(trimmed)}\`)`
      : `\`${abbreviate(worst.command)}\``;
  const suggestion =
    worst.classification === "safe" || worst.classification === "allowlisted"
      ? undefined
      : SUGGESTIONS[worst.classification];
  return {
    classification: worst.classification,
    parts,
    summary: `${subject} ${worst.reason}`,
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}

/** A command line refused before parsing, or the parts of its script. */
function judgeParts(command: string, trimmed: string, judge: () => CommandPart[]): CommandPart[] {
  const refuse = (shown: string, reason: string): CommandPart[] => [
    { command: shown, words: [], classification: "unparseable", reason },
  ];
  if (trimmed === "") {
    return refuse(command, "is empty");
  }
  if (command.includes("\u0000")) {
    return refuse(
      trimmed.replaceAll("\u0000", "\\0"),
      "contains a NUL character, where bash stops reading the command line",
    );
  }
  if (command.length > MAX_COMMAND_LENGTH) {
    return refuse(
      `${trimmed.slice(0, 80)}…`,
      `is longer than ${MAX_COMMAND_LENGTH} characters, too long to judge`,
    );
  }
  return judge();
}

/** The synchronous core of `evaluateCommand`, for callers that already hold a parser. */
export function evaluateCommandWith(
  parser: BashParser,
  command: string,
  options: EvaluateCommandOptions,
): CommandDecision {
  const judgement = judgeCommandLine(parser, command, options.allowPrefixes, options.place);
  const decision = decideApproval(options.approvalMode, shellAction(judgement.classification));
  return {
    decision,
    reason: `${judgement.summary}; ${describeDecision(decision, options.approvalMode)}`,
    ...(judgement.suggestion === undefined || decision === "approved"
      ? {}
      : { suggestion: judgement.suggestion }),
    classification: judgement.classification,
    parts: judgement.parts,
  };
}

function describeDecision(decision: CommandDecision["decision"], mode: ApprovalMode): string {
  switch (decision) {
    case "approved":
      return `approval mode \`${mode}\` runs it`;
    case "rejected":
      return `approval mode \`${mode}\` refuses it`;
    case "needs_confirmation":
      return `approval mode \`${mode}\` asks a person first`;
  }
}

/** Keeps reasons readable when the command is long. */
function abbreviate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
