import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { parse } from "yaml";
import { ACTION_INPUT_NAMES } from "../../../src/doors/action/action-inputs.js";
import { ACTION_OUTPUT_NAMES } from "../../../src/doors/action/action-io.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const workflowsDir = path.join(root, "docs/workflows");

interface Step {
  readonly uses?: string;
  readonly with?: Record<string, unknown>;
}

interface ActionFile {
  readonly inputs: Record<string, { readonly default?: string }>;
  readonly outputs: Record<string, unknown>;
  readonly runs: unknown;
}

interface WorkflowFile {
  readonly on: Record<string, unknown>;
  readonly permissions: Record<string, string>;
  readonly jobs: Record<string, { readonly steps: Step[] }>;
}

async function readYaml<T>(file: string): Promise<T> {
  return parse(await readFile(file, "utf8")) as T;
}

const expectations: Record<string, { events: string[]; permissions: Record<string, string> }> = {
  "agentforge-comment.yml": {
    events: ["issue_comment", "pull_request_review_comment"],
    permissions: { contents: "write", issues: "write", "pull-requests": "write", checks: "write" },
  },
  "agentforge-review.yml": {
    events: ["pull_request"],
    permissions: { contents: "read", "pull-requests": "write" },
  },
  "agentforge-dispatch.yml": { events: ["workflow_dispatch"], permissions: { contents: "read" } },
  "agentforge-ci.yml": {
    events: ["workflow_run"],
    permissions: {
      contents: "write",
      issues: "write",
      "pull-requests": "write",
      checks: "write",
      actions: "read",
    },
  },
};

describe("action.yml", () => {
  it("declares the inputs and outputs the code reads and writes, and runs on node24", async () => {
    const action = await readYaml<ActionFile>(path.join(root, "action.yml"));
    expect(Object.keys(action.inputs)).toEqual([...ACTION_INPUT_NAMES]);
    expect(Object.keys(action.outputs)).toEqual([...ACTION_OUTPUT_NAMES]);
    expect(action.runs).toEqual({ using: "node24", main: "dist/action.js" });
    expect(action.inputs["github-token"]?.default).toBe("${{ github.token }}");
    expect(action.inputs["approval"]?.default).toBe("never");
  });
});

describe("docs/workflows", () => {
  it("holds exactly the documented workflows", async () => {
    const files = (await readdir(workflowsDir)).filter((file) => file.endsWith(".yml")).sort();
    expect(files).toEqual(Object.keys(expectations).sort());
  });

  it.each(Object.entries(expectations))(
    "%s is valid and uses only declared inputs",
    async (file, expected) => {
      const action = await readYaml<ActionFile>(path.join(root, "action.yml"));
      const declared = new Set(Object.keys(action.inputs));
      const workflow = await readYaml<WorkflowFile>(path.join(workflowsDir, file));
      expect(Object.keys(workflow.on)).not.toContain("pull_request_target");
      expect(Object.keys(workflow.on)).toEqual(expected.events);
      expect(workflow.permissions).toEqual(expected.permissions);
      const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
      const ours = steps.filter((step) => step.uses?.startsWith("agentforge/agentforge@"));
      expect(ours).toHaveLength(1);
      const keys = Object.keys(ours[0]!.with ?? {});
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(declared).toContain(key);
      // The model key comes from a secret, never written into the file.
      expect(ours[0]!.with?.["api-key"]).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
      // A checkout that the agent's commands can read must not keep the token.
      for (const step of steps.filter((entry) => entry.uses?.startsWith("actions/checkout@")))
        expect(step.with?.["persist-credentials"]).toBe(false);
    },
  );
});
