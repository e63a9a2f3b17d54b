import type { MockStep } from "../../../src/mock-model/mock-script.js";
import type { OperatorKeyCase } from "./operator-key-case.js";
import { runWithOperatorConfig, toolMessagesSeen, type OperatorRun } from "./run-with-operator-config.js";

const done: MockStep = { type: "text", text: "done" };
const askProbe: MockStep = {
  type: "tool_calls",
  calls: [{ name: "subagent_probe", arguments: { goal: "look around" } }],
};
const probe = (settings: Record<string, unknown> = {}) => ({
  subagents: [
    {
      name: "probe",
      description: "Looks around the workspace.",
      instructions: "You are the probe helper.",
      ...settings,
    },
  ],
});

interface OfferedTool {
  readonly function: { readonly name: string; readonly description?: string };
}
const offeredTools = (run: OperatorRun, index: number): OfferedTool[] =>
  (run.requests[index]?.body?.tools ?? []) as OfferedTool[];

/** The main run asks the helper once; the helper's own requests come next, then the main run's last. */
async function askTheHelper(config: Record<string, unknown>, helperSteps: readonly MockStep[]) {
  return runWithOperatorConfig({ config, steps: [askProbe, ...helperSteps, done] });
}

export const subagentKeyCases: readonly OperatorKeyCase[] = [
  {
    keys: ["subagents", "subagents[].name"],
    title: "subagents.name offers the helper as a tool of that name",
    baseline: {},
    changed: probe(),
    observe: async (config) => {
      const run = await runWithOperatorConfig({ config, steps: [done] });
      return offeredTools(run, 0).some((tool) => tool.function.name === "subagent_probe");
    },
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["subagents[].description"],
    title: "subagents.description tells the model what the helper is for",
    baseline: probe(),
    changed: probe({ description: "Counts the lines of every file." }),
    observe: async (config) => {
      const run = await runWithOperatorConfig({ config, steps: [done] });
      const tool = offeredTools(run, 0).find((candidate) => candidate.function.name === "subagent_probe");
      return tool?.function.description?.includes("Counts the lines of every file.") ?? false;
    },
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["subagents[].instructions"],
    title: "subagents.instructions reach the helper's own model calls",
    baseline: probe(),
    changed: probe({ instructions: "Answer in the voice of a lighthouse keeper." }),
    observe: async (config) => {
      const run = await askTheHelper(config, [{ type: "text", text: "nothing here" }]);
      return JSON.stringify(run.requests[1]?.body?.messages ?? []).includes("lighthouse keeper");
    },
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["subagents[].tools"],
    title: "subagents.tools are the only tools the helper is offered",
    baseline: probe(),
    changed: probe({ tools: ["read_file"] }),
    observe: async (config) => {
      const run = await askTheHelper(config, [{ type: "text", text: "nothing here" }]);
      return offeredTools(run, 1)
        .map((tool) => tool.function.name)
        .sort();
    },
    expected: { baseline: ["glob", "grep", "list_dir", "read_file"], changed: ["read_file"] },
  },
  {
    keys: ["subagents[].max_turns"],
    title: "subagents.max_turns ends the helper after that many turns",
    baseline: probe(),
    changed: probe({ max_turns: 1 }),
    // Limited to one turn, the helper never asks for the step meant as its answer: the main run gets it.
    observe: async (config) =>
      (
        await askTheHelper(config, [
          { type: "tool_calls", calls: [{ name: "glob", arguments: { pattern: "*.txt" } }] },
          { type: "text", text: "the helper's answer" },
        ])
      ).result.finalAnswer,
    expected: { baseline: "done", changed: "the helper's answer" },
  },
  {
    keys: ["subagents[].timeout_ms"],
    title: "subagents.timeout_ms stops a helper that takes too long",
    baseline: probe(),
    changed: probe({ timeout_ms: 200 }),
    observe: async (config) => {
      const run = await askTheHelper(config, [{ type: "text", text: "the helper's answer", delay_ms: 800 }]);
      return toolMessagesSeen(run).some((message) => message.includes("the helper's answer"));
    },
    expected: { baseline: true, changed: false },
  },
];
