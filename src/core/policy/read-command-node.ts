import type { BashNode } from "./load-bash-parser.js";
import { REDIRECT_TYPES } from "./judge-redirect.js";

export interface CommandNodeReading {
  /** The word in command position (inside the grammar's `command_name`). */
  readonly name?: BashNode;
  readonly args: readonly BashNode[];
  /** `NAME=value` prefixes. */
  readonly assignments: readonly BashNode[];
  readonly redirects: readonly BashNode[];
  /** Children the reading does not place: they make the command unparseable. */
  readonly strayNodes: readonly BashNode[];
}

/** Sorts the children of a grammar `command` node by their role. */
export function readCommandNode(node: BashNode): CommandNodeReading {
  const nameWrapper = node.childForFieldName("name");
  const args = node.childrenForFieldName("argument").filter((child): child is BashNode => child !== null);
  const argumentIds = new Set(args.map((child) => child.id));
  const assignments: BashNode[] = [];
  const redirects: BashNode[] = [];
  const strayNodes: BashNode[] = [];
  let name: BashNode | undefined;
  if (nameWrapper !== null) {
    const inner = nameWrapper.namedChildren;
    if (inner.length === 1 && inner[0] !== null && inner[0] !== undefined) {
      name = inner[0];
    } else {
      strayNodes.push(nameWrapper);
    }
  }
  for (const child of node.namedChildren) {
    if (child === null || child.id === nameWrapper?.id || argumentIds.has(child.id)) {
      continue;
    }
    if (child.type === "variable_assignment") {
      assignments.push(child);
    } else if (REDIRECT_TYPES.has(child.type)) {
      redirects.push(child);
    } else {
      strayNodes.push(child);
    }
  }
  return { ...(name === undefined ? {} : { name }), args, assignments, redirects, strayNodes };
}
