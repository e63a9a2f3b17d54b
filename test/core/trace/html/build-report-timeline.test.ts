import { describe, expect, it } from "@jest/globals";
import { buildReportTimeline } from "../../../../src/core/trace/html/build-report-timeline.js";
import type { ReportItem, SubagentItem, TurnGroup } from "../../../../src/core/trace/html/report-items.js";
import { countOutcomes, summarizeTurns } from "../../../../src/core/trace/html/summarize-report.js";
import type { TraceEvent } from "../../../../src/core/trace/trace-format.js";

let clock = 0;
function event(eventType: string, step: number, attributes: Record<string, unknown> = {}): TraceEvent {
  clock += 1;
  return {
    record: "event",
    event_type: eventType,
    step,
    timestamp: new Date(clock * 1000).toISOString(),
    attributes,
  };
}

const modelEnd = (step: number, inputTokens: number, extra: Record<string, unknown> = {}) =>
  event("model-call-end", step, {
    "gen_ai.response.model": "m",
    "gen_ai.usage.input_tokens": inputTokens,
    "gen_ai.usage.output_tokens": 10,
    "model.cost_usd": 0.001,
    ...extra,
  });

function kinds(turn: TurnGroup | undefined): string[] {
  return (turn?.items ?? []).map((item) => (item.kind === "notice" ? item.eventType : item.kind));
}

function subagentAt(turn: TurnGroup | undefined, index: number): SubagentItem {
  const item: ReportItem | undefined = turn?.items[index];
  if (item?.kind !== "subagent")
    throw new Error(`item ${index} is ${item?.kind ?? "missing"}, not a subagent`);
  return item;
}

describe("buildReportTimeline", () => {
  it("pairs a tool call's start, end and refusal by id, and keeps calls without a result as pending", () => {
    const turns = buildReportTimeline([
      event("tool-call-start", 1, {
        "tool_call.id": "a",
        "tool_call.name": "read_file",
        "tool_call.arguments": "{}",
      }),
      event("tool-call-start", 1, {
        "tool_call.id": "b",
        "tool_call.name": "run_shell",
        "tool_call.arguments": "{}",
      }),
      event("tool-call-refused", 1, {
        "tool_call.id": "b",
        "tool_call.name": "run_shell",
        "refusal.reason": "no",
      }),
      event("tool-call-end", 1, {
        "tool_call.id": "a",
        "tool_call.name": "read_file",
        "tool_call.ok": false,
        "tool_call.status": "timeout",
        "tool_call.error_type": "TOOL_TIMEOUT",
      }),
      event("tool-call-start", 2, { "tool_call.id": "c", "tool_call.name": "grep" }),
      event("model-call-start", 2, { "gen_ai.request.model": "m", "gen_ai.request.message_count": 4 }),
    ]);
    const items = turns.flatMap((turn) => turn.items);
    expect(
      items.map((item) => (item.kind === "tool-call" ? `${item.name}:${item.outcome}` : item.kind)),
    ).toEqual(["read_file:timeout", "run_shell:refused", "grep:pending", "model-call"]);
    const model = items[3];
    expect(model?.kind === "model-call" && !model.answered && model.messageCount === 4).toBe(true);
    const counts = countOutcomes(turns);
    expect([counts.toolOk, counts.toolErrors, counts.refusals]).toEqual([0, 1, 1]);
    expect([...counts.errorTypes]).toEqual([["TOOL_TIMEOUT", 1]]);
  });

  it("nests bracketed subagents, inside one another, without their turns disturbing the parent's", () => {
    const turns = buildReportTimeline([
      modelEnd(1, 100),
      event("subagent-start", 1, { "subagent.name": "planner", "subagent.goal": "plan" }),
      modelEnd(1, 50),
      event("subagent-start", 1, { "subagent.name": "helper", "subagent.goal": "help" }),
      event("tool-call-end", 1, { "tool_call.id": "x", "tool_call.name": "grep", "tool_call.ok": true }),
      event("subagent-end", 1, { "subagent.name": "helper", "subagent.exit_reason": "final_answer" }),
      modelEnd(2, 70),
      event("subagent-end", 1, {
        "subagent.name": "planner",
        "subagent.exit_reason": "max_turns",
        "subagent.cost_usd": 0.5,
      }),
      modelEnd(2, 200),
    ]);
    expect(turns.map((turn) => turn.step)).toEqual([1, 2]);
    expect(kinds(turns[0])).toEqual(["model-call", "subagent"]);
    const planner = subagentAt(turns[0], 1);
    expect([planner.name, planner.exitReason, planner.costUsd, planner.finished]).toEqual([
      "planner",
      "max_turns",
      0.5,
      true,
    ]);
    expect(planner.turns.map((turn) => turn.step)).toEqual([1, 2]);
    const helper = subagentAt(planner.turns[0], 1);
    expect(kinds(helper.turns[0])).toEqual(["tool-call"]);
    // The chart follows the main agent only.
    expect(summarizeTurns(turns).map((figure) => figure.contextTokens)).toEqual([100, 200]);
    expect(countOutcomes(turns).subagents).toBe(2);
  });

  it("groups events tagged with a subagent name, and closes the group on that subagent's end", () => {
    const turns = buildReportTimeline([
      modelEnd(1, 100),
      event("tool-call-end", 1, {
        "subagent.name": "tester",
        "tool_call.id": "t1",
        "tool_call.name": "a",
        "tool_call.ok": true,
      }),
      event("tool-call-end", 1, {
        "subagent.name": "tester",
        "tool_call.id": "t2",
        "tool_call.name": "b",
        "tool_call.ok": true,
      }),
      event("subagent-end", 1, { "subagent.name": "tester", "subagent.exit_reason": "final_answer" }),
      event("tool-call-end", 1, {
        "subagent.name": "tester",
        "tool_call.id": "t3",
        "tool_call.name": "c",
        "tool_call.ok": true,
      }),
      event("subagent-end", 1, { "subagent.name": "ghost", "subagent.exit_reason": "error" }),
    ]);
    expect(kinds(turns[0])).toEqual(["model-call", "subagent", "subagent", "subagent"]);
    const first = subagentAt(turns[0], 1);
    expect([first.inferred, first.finished, first.exitReason]).toEqual([true, true, "final_answer"]);
    expect(first.turns[0]?.items).toHaveLength(2);
    expect(subagentAt(turns[0], 2).finished).toBe(false);
    const ghost = subagentAt(turns[0], 3);
    expect([ghost.name, ghost.finished, ghost.turns.length]).toEqual(["ghost", true, 0]);
  });

  it("keeps everything after a subagent that never ended inside it, unfinished", () => {
    const turns = buildReportTimeline([
      event("subagent-start", 2, { "subagent.name": "reviewer" }),
      modelEnd(1, 10),
      event("loop-detected", 1, { "loop.description": "same call" }),
    ]);
    const reviewer = subagentAt(turns[0], 0);
    expect(reviewer.finished).toBe(false);
    expect(kinds(reviewer.turns[0])).toEqual(["model-call", "loop-detected"]);
  });
});

describe("summarizeTurns", () => {
  it("takes the context size from the turn's last model call and sums its tokens and cost", () => {
    const figures = summarizeTurns(
      buildReportTimeline([
        modelEnd(1, 100),
        event("context-compacted", 2, { "context.tokens_before": 900, "context.tokens_after": 200 }),
        modelEnd(2, 900),
        modelEnd(2, 300),
        event("usage-updated", 2, { "usage.total_tokens": 1330, "usage.cost_usd": 0.003 }),
      ]),
    );
    expect(
      figures.map((figure) => [figure.step, figure.contextTokens, figure.inputTokens, figure.outputTokens]),
    ).toEqual([
      [1, 100, 100, 10],
      [2, 300, 1200, 20],
    ]);
    expect(figures[1]?.contextChanges).toEqual(["compacted"]);
    expect(figures[1]?.cumulativeCostUsd).toBe(0.003);
  });

  it("falls back to the deltas of cumulative usage when no model call recorded its usage", () => {
    const figures = summarizeTurns(
      buildReportTimeline([
        event("usage-updated", 1, { "usage.total_tokens": 500, "usage.cost_usd": 0.01 }),
        event("usage-updated", 2, { "usage.total_tokens": 1200, "usage.cost_usd": 0.02 }),
        event("run-finished", 3, { "run.exit_reason": "final_answer" }),
      ]),
    );
    expect(figures.map((figure) => [figure.step, figure.contextTokens, figure.outputTokens])).toEqual([
      [1, null, 500],
      [2, null, 700],
    ]);
  });
});
