import { z } from "zod";
import { operatorConfigSchema } from "../../../src/core/config/operator-config-schema.js";

interface JsonSchemaNode {
  readonly type?: string;
  readonly properties?: Record<string, JsonSchemaNode>;
  readonly additionalProperties?: JsonSchemaNode | boolean;
  readonly items?: JsonSchemaNode;
  readonly anyOf?: readonly JsonSchemaNode[];
}

/**
 * Every key of the operator config, read from its schema: `leaves` are the settings an operator
 * writes (a record's entry is `*`, a list's item `[]`), `all` adds the sections that hold them.
 */
export function listOperatorKeys(): { readonly leaves: string[]; readonly all: string[] } {
  const leaves = new Set<string>();
  const all = new Set<string>();
  const visit = (node: JsonSchemaNode, at: string): void => {
    if (node.anyOf) {
      for (const branch of node.anyOf) visit(branch, at);
      return;
    }
    const entry = typeof node.additionalProperties === "object" ? node.additionalProperties : undefined;
    const holdsKeys = (candidate: JsonSchemaNode | undefined): boolean =>
      candidate !== undefined &&
      (candidate.properties !== undefined || (candidate.anyOf ?? []).some((branch) => branch.properties));
    if (at !== "") all.add(at);
    if (node.properties && Object.keys(node.properties).length > 0) {
      for (const [key, child] of Object.entries(node.properties))
        visit(child, at === "" ? key : `${at}.${key}`);
    } else if (holdsKeys(entry)) visit(entry!, `${at}.*`);
    else if (node.type === "array" && holdsKeys(node.items)) visit(node.items!, `${at}[]`);
    else leaves.add(at);
  };
  visit(z.toJSONSchema(operatorConfigSchema, { io: "input" }) as JsonSchemaNode, "");
  return { leaves: [...leaves].sort(), all: [...all].sort() };
}
