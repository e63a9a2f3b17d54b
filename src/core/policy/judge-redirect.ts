import type { Verdict } from "./command-classification.js";
import { describeDangerousWriteTarget } from "./dangerous-command.js";
import type { BashNode } from "./load-bash-parser.js";
import { scanWord } from "./scan-word.js";
import { evaluateWord } from "./shell-word.js";

export const REDIRECT_TYPES = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);

/** Operators that open their target for writing; `>&` and `<&` only do so with a file name. */
const WRITING_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
/** Write targets that are not files: discarding output or sending it to the command's own streams. */
const HARMLESS_WRITE_TARGET = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

export interface RedirectCallbacks {
  /** A command or process substitution inside a target or here-document: its commands run too. */
  readonly onSubstitution: (node: BashNode) => void;
  /** The parser hangs the rest of a line after a here-document (`<<EOF | sh`) under the redirect. */
  readonly onStatement: (node: BashNode) => void;
}

/** Undefined for redirects that neither write files nor hide code; otherwise the worst problem found. */
export function judgeRedirect(node: BashNode, callbacks: RedirectCallbacks): Verdict[] {
  switch (node.type) {
    case "herestring_redirect":
      return node.namedChildren.flatMap((child) =>
        child === null ? [] : scanWord(child, callbacks.onSubstitution),
      );
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
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? "";
  const destinations = node.children.filter(
    (_child, index) => node.fieldNameForChild(index) === "destination",
  );
  const problems: Verdict[] = [];
  if (
    node.children.some((child) => child !== null && (child.isError || child.isMissing)) ||
    destinations.length > 1
  ) {
    return [
      {
        classification: "unparseable",
        reason: `has the redirection \`${node.text}\`, which the parser could not read`,
      },
    ];
  }
  const destination = destinations[0];
  if (destination === null || destination === undefined) {
    return problems;
  }
  problems.push(...scanWord(destination, callbacks.onSubstitution));
  if (
    !WRITING_OPERATORS.has(operator) ||
    ((operator === ">&" || operator === "<&") && /^(\d+|-)$/.test(destination.text))
  ) {
    return problems;
  }
  const target = evaluateWord(destination);
  if (!target.success) {
    return [...problems, { classification: "unparseable", reason: target.error }];
  }
  if (!target.value.isLiteral) {
    return [
      ...problems,
      {
        classification: "not_allowlisted",
        reason: `writes to \`${target.value.source}\` (computed at run time) through a redirection`,
      },
    ];
  }
  const path = target.value.value;
  if (HARMLESS_WRITE_TARGET.test(path)) {
    return problems;
  }
  const danger = describeDangerousWriteTarget(path);
  return [
    ...problems,
    danger === undefined
      ? { classification: "not_allowlisted", reason: `writes to \`${path}\` through a redirection` }
      : { classification: "dangerous", reason: danger },
  ];
}

/**
 * With an unquoted delimiter the body is expanded like a double-quoted string, so its
 * substitutions run. The grammar leaves backquotes in a body as plain text: refuse those.
 */
function judgeHereDocument(node: BashNode, callbacks: RedirectCallbacks): Verdict[] {
  const problems: Verdict[] = [];
  const start = node.children.find((child) => child?.type === "heredoc_start")?.text ?? "";
  const isQuoted = /['"\\]/.test(start);
  for (const child of node.namedChildren) {
    if (child === null || child.type === "heredoc_start" || child.type === "heredoc_end") {
      continue;
    }
    if (child.type === "heredoc_body") {
      if (!isQuoted) {
        problems.push(...judgeHereDocumentBody(child, callbacks));
      }
    } else if (REDIRECT_TYPES.has(child.type)) {
      problems.push(...judgeRedirect(child, callbacks));
    } else {
      callbacks.onStatement(child);
    }
  }
  return problems;
}

function judgeHereDocumentBody(body: BashNode, callbacks: RedirectCallbacks): Verdict[] {
  const problems: Verdict[] = [];
  const parsedTexts: string[] = [];
  for (const child of body.namedChildren) {
    if (child === null || child.type === "heredoc_content") {
      continue;
    }
    parsedTexts.push(child.text);
    problems.push(...scanWord(child, callbacks.onSubstitution));
  }
  // Every substitution marker in the body must belong to a substitution the parser read.
  const parsed = parsedTexts.join("\n");
  if (
    ["`", "$(", "$["].some((marker) => countOccurrences(body.text, marker) > countOccurrences(parsed, marker))
  ) {
    problems.push({
      classification: "unparseable",
      reason: "has a here-document whose body contains a substitution the parser did not read",
    });
  }
  return problems;
}

function countOccurrences(text: string, marker: string): number {
  return text.split(marker).length - 1;
}
