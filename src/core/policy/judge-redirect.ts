import type { Verdict } from "./command-classification.js";
import { classifyPath } from "./classify-path.js";
import type { CommandLocation } from "./command-location.js";
import type { BashNode } from "./load-bash-parser.js";
import { scanWord } from "./scan-word.js";
import { evaluateWord } from "./shell-word.js";

export const REDIRECT_TYPES = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);

/** Operators that open their target for writing; `>&` and `<&` only do so with a file name. */
const WRITING_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
const READING_OPERATORS = new Set(["<", "<&"]);
/** bash opens a network connection for these paths itself. */
const NETWORK_PATH = /^\/dev\/(tcp|udp)\//;

export interface RedirectCallbacks {
  /** A command or process substitution inside a target or here-document: its commands run too. */
  readonly onSubstitution: (node: BashNode) => void;
  /** The parser hangs the rest of a line after a here-document (`<<EOF | sh`) under the redirect. */
  readonly onStatement: (node: BashNode) => void;
  /** Where relative targets land. */
  readonly location: () => CommandLocation;
}

/** The problems of one redirection; empty when it neither writes files nor hides code. */
export function judgeRedirect(node: BashNode, callbacks: RedirectCallbacks): Verdict[] {
  switch (node.type) {
    case "herestring_redirect":
      return node.namedChildren.flatMap((child) => scanWord(child, callbacks.onSubstitution));
    case "heredoc_redirect":
      return judgeHereDocument(node, callbacks);
    case "file_redirect":
      return judgeFileRedirect(node, callbacks);
    default:
      return [
        {
          classification: "unparseable",
          reason: `uses the redirection \`${node.text}\`, which the policy does not judge`,
        },
      ];
  }
}

function judgeFileRedirect(node: BashNode, callbacks: RedirectCallbacks): Verdict[] {
  const operator = node.children.find((child) => !child.isNamed)?.type ?? "";
  const destinations = node.children.filter(
    (_child, index) => node.fieldNameForChild(index) === "destination",
  );
  if (node.children.some((child) => child.isError || child.isMissing) || destinations.length > 1) {
    return [
      {
        classification: "unparseable",
        reason: `has the redirection \`${node.text}\`, which the parser could not read`,
      },
    ];
  }
  const destination = destinations[0];
  if (destination === undefined) {
    return [];
  }
  const problems = scanWord(destination, callbacks.onSubstitution);
  if ((operator === ">&" || operator === "<&") && /^([0-9]|-)$/.test(destination.text)) {
    return problems;
  }
  const target = evaluateWord(destination);
  if (!target.success) {
    return [...problems, { classification: "unparseable", reason: target.error }];
  }
  if (target.value.isLiteral && NETWORK_PATH.test(target.value.value)) {
    return [
      ...problems,
      { classification: "not_allowlisted", reason: `opens the network connection \`${target.value.value}\`` },
    ];
  }
  if (READING_OPERATORS.has(operator) || !WRITING_OPERATORS.has(operator)) {
    return problems;
  }
  const place = classifyPath(target.value, callbacks.location());
  switch (place.kind) {
    case "device":
      return problems;
    case "workspace":
    case "scratch":
      return [
        ...problems,
        {
          classification: "not_allowlisted",
          reason: `writes to \`${target.value.source}\` through a redirection`,
        },
      ];
    case "outside":
      return [
        ...problems,
        {
          classification: "dangerous",
          reason: `writes to \`${target.value.source}\` through a redirection, which is outside the workspace`,
        },
      ];
    case "unknown":
      return [
        ...problems,
        {
          classification: "unparseable",
          reason: `writes to \`${target.value.source}\` through a redirection: ${place.reason}, so it may be outside the workspace`,
        },
      ];
  }
}

/**
 * The body was checked against bash's own reading (`check-here-document.ts`): a quoted
 * delimiter keeps it plain text, a bare one allows only plain variable expansions. What the
 * parser hangs under the redirect (the rest of the operator's line) is judged as statements.
 */
function judgeHereDocument(node: BashNode, callbacks: RedirectCallbacks): Verdict[] {
  const problems: Verdict[] = [];
  for (const child of node.namedChildren) {
    if (child.type === "heredoc_start" || child.type === "heredoc_end") {
      continue;
    }
    if (child.type === "heredoc_body") {
      problems.push(...scanWord(child, callbacks.onSubstitution));
    } else if (REDIRECT_TYPES.has(child.type)) {
      problems.push(...judgeRedirect(child, callbacks));
    } else {
      callbacks.onStatement(child);
    }
  }
  return problems;
}
