import type { BashNode } from "./load-bash-parser.js";

/** Operators that open a file onto a descriptor without being refused as writes of their own. */
const OPENING_OPERATORS = new Set(["<", "<&", "<>"]);

/**
 * The first redirection in the tree that opens a file onto a file descriptor (`<f`, `3<f`), as
 * written. On Linux, `/dev/fd/N`, `/dev/stdout` and `/dev/stderr` are links to the open file:
 * writing to one opens that file again, for writing, so `cat g <f >/dev/fd/0` truncates `f`.
 * Those paths are streams only in a command line that opens no file onto a descriptor.
 */
export function findOpenedFile(root: BashNode): string | undefined {
  if (!root.text.includes("<")) {
    return undefined;
  }
  for (const redirect of root.descendantsOfType("file_redirect")) {
    const operator = redirect.children.find((child) => !child.isNamed)?.type ?? "";
    const destination = redirect.childForFieldName("destination");
    if (
      OPENING_OPERATORS.has(operator) &&
      !(operator === "<&" && destination !== null && /^([0-9]+|-)$/.test(destination.text)) &&
      destination?.text !== "/dev/null"
    ) {
      return redirect.text;
    }
  }
  return undefined;
}
