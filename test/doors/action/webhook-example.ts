import { createRequire } from "node:module";

/** A JSON object from a fixture, edited in place by path. */
export type JsonObject = Record<string, unknown>;

interface ExampleGroup {
  readonly name: string;
  readonly examples: readonly JsonObject[];
}

const groups = createRequire(import.meta.url)("@octokit/webhooks-examples") as ExampleGroup[];

/** A real payload from @octokit/webhooks-examples, copied so a test can adjust it. */
export function webhookExample(name: string, action: string): JsonObject {
  const found = groups
    .find((group) => group.name === name)
    ?.examples.find((entry) => entry["action"] === action);
  if (found === undefined) throw new Error(`no ${name}.${action} example`);
  return structuredClone(found);
}

function parentOf(target: JsonObject, dottedPath: string): { parent: JsonObject; key: string } {
  const keys = dottedPath.split(".");
  const key = keys.pop()!;
  let parent = target;
  for (const name of keys) {
    const next = parent[name];
    if (typeof next !== "object" || next === null) throw new Error(`${dottedPath}: ${name} is not an object`);
    parent = next as JsonObject;
  }
  return { parent, key };
}

/** `edit(payload, {"issue.number": 3, "issue.pull_request": undefined})`: undefined deletes. */
export function edit(target: JsonObject, changes: Readonly<Record<string, unknown>>): JsonObject {
  for (const [dottedPath, value] of Object.entries(changes)) {
    const { parent, key } = parentOf(target, dottedPath);
    if (value === undefined) delete parent[key];
    else parent[key] = value;
  }
  return target;
}

export function read(target: JsonObject, dottedPath: string): unknown {
  const { parent, key } = parentOf(target, dottedPath);
  return parent[key];
}
