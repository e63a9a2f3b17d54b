import type { TraceEvent } from "../trace-format.js";
import { asText, readNumber, readString, type Attributes } from "./attribute-readers.js";
import type { ModelCallItem, ReportItem, SubagentItem, ToolCallItem, TurnGroup } from "./report-items.js";

/** Events folded into other items, or not worth a line of their own. */
const ABSORBED_EVENTS = new Set(["state-changed", "turn-start", "text-delta"]);

interface Scope {
  readonly turns: TurnGroup[];
  readonly toolCalls: Map<string, ToolCallItem>;
  pendingModelCall: ModelCallItem | null;
  readonly subagent: SubagentItem | null;
}

function createScope(subagent: SubagentItem | null, turns: TurnGroup[]): Scope {
  return { turns, toolCalls: new Map(), pendingModelCall: null, subagent };
}

/**
 * Folds the flat event list into turns of items: a model call with its usage, each tool call with
 * its start and its outcome, and subagent runs nested. Events between subagent-start and
 * subagent-end belong to that subagent; so do events tagged with a `subagent.name` of their own.
 */
export function buildReportTimeline(events: readonly TraceEvent[]): TurnGroup[] {
  const rootTurns: TurnGroup[] = [];
  const stack: Scope[] = [createScope(null, rootTurns)];
  const taggedScopes = new WeakMap<SubagentItem, Scope>();
  for (const event of events) {
    const attributes: Attributes =
      event.attributes !== null && typeof event.attributes === "object" ? event.attributes : {};
    const step = typeof event.step === "number" ? event.step : 0;
    const timestamp = typeof event.timestamp === "string" ? event.timestamp : "";
    const current = stack[stack.length - 1] ?? stack[0];
    if (current === undefined) break;

    if (event.event_type === "subagent-start") {
      const subagent = newSubagent(step, timestamp, attributes, false);
      addItem(current, step, subagent);
      stack.push(createScope(subagent, subagent.turns));
      continue;
    }
    if (event.event_type === "subagent-end") {
      closeSubagent(stack, step, timestamp, attributes);
      continue;
    }
    const scope = scopeForTaggedEvent(current, step, timestamp, attributes, taggedScopes);
    addEvent(scope, event.event_type, step, timestamp, attributes);
  }
  return rootTurns;
}

function newSubagent(
  step: number,
  timestamp: string,
  attributes: Attributes,
  inferred: boolean,
): SubagentItem {
  return {
    kind: "subagent",
    step,
    timestamp,
    name: readString(attributes, "subagent.name") ?? "subagent",
    goal: readString(attributes, "subagent.goal"),
    exitReason: null,
    costUsd: null,
    finished: false,
    inferred,
    turns: [],
  };
}

/** Pops to the matching open subagent; an end with no start closes a tagged group or stands alone. */
function closeSubagent(stack: Scope[], step: number, timestamp: string, attributes: Attributes): void {
  const name = readString(attributes, "subagent.name") ?? "subagent";
  const finish = (subagent: SubagentItem): void => {
    subagent.finished = true;
    subagent.exitReason = readString(attributes, "subagent.exit_reason");
    subagent.costUsd = readNumber(attributes, "subagent.cost_usd");
  };
  for (let index = stack.length - 1; index > 0; index -= 1) {
    const subagent = stack[index]?.subagent;
    if (subagent?.name === name) {
      finish(subagent);
      stack.length = index;
      return;
    }
  }
  const current = stack[stack.length - 1];
  if (current === undefined) return;
  const last = lastItem(current);
  if (last?.kind === "subagent" && last.inferred && last.name === name && !last.finished) {
    finish(last);
    return;
  }
  const standalone = newSubagent(step, timestamp, attributes, false);
  finish(standalone);
  addItem(current, step, standalone);
}

/** An event tagged with a subagent name that is not the open one goes into a group of that name. */
function scopeForTaggedEvent(
  current: Scope,
  step: number,
  timestamp: string,
  attributes: Attributes,
  taggedScopes: WeakMap<SubagentItem, Scope>,
): Scope {
  const name = readString(attributes, "subagent.name");
  if (name === null || current.subagent?.name === name) return current;
  const last = lastItem(current);
  if (last?.kind === "subagent" && last.inferred && last.name === name && !last.finished) {
    return taggedScopes.get(last) ?? current;
  }
  const groupStep = current.turns[current.turns.length - 1]?.step ?? step;
  const subagent = newSubagent(groupStep, timestamp, attributes, true);
  addItem(current, groupStep, subagent);
  const scope = createScope(subagent, subagent.turns);
  taggedScopes.set(subagent, scope);
  return scope;
}

function lastItem(scope: Scope): ReportItem | undefined {
  const items = scope.turns[scope.turns.length - 1]?.items;
  return items?.[items.length - 1];
}

function addItem(scope: Scope, step: number, item: ReportItem): void {
  turnFor(scope, step).items.push(item);
}

function turnFor(scope: Scope, step: number): TurnGroup {
  const last = scope.turns[scope.turns.length - 1];
  if (last !== undefined && last.step === step) return last;
  const turn: TurnGroup = { step, items: [], cumulativeTokens: null, cumulativeCostUsd: null };
  scope.turns.push(turn);
  return turn;
}

function addEvent(
  scope: Scope,
  eventType: string,
  step: number,
  timestamp: string,
  attributes: Attributes,
): void {
  switch (eventType) {
    case "model-call-start": {
      const item = newModelCall(step, timestamp, attributes);
      item.messageCount = readNumber(attributes, "gen_ai.request.message_count");
      scope.pendingModelCall = item;
      addItem(scope, step, item);
      return;
    }
    case "model-call-end": {
      const pending = scope.pendingModelCall;
      const item = pending ?? newModelCall(step, timestamp, attributes);
      if (pending === null) addItem(scope, step, item);
      scope.pendingModelCall = null;
      fillModelCall(item, attributes);
      return;
    }
    case "tool-call-start": {
      const item = toolCallFor(scope, step, timestamp, attributes);
      item.arguments =
        readString(attributes, "tool_call.arguments") ?? asText(attributes["tool_call.arguments"]);
      return;
    }
    case "tool-call-end": {
      const item = toolCallFor(scope, step, timestamp, attributes);
      fillToolResult(item, attributes);
      return;
    }
    case "tool-call-refused": {
      const item = toolCallFor(scope, step, timestamp, attributes);
      item.outcome = "refused";
      item.message = readString(attributes, "refusal.reason");
      return;
    }
    case "usage-updated": {
      const turn = turnFor(scope, step);
      turn.cumulativeTokens = readNumber(attributes, "usage.total_tokens") ?? turn.cumulativeTokens;
      // The latest figure wins: a null cost means a call had no known price, from then on.
      turn.cumulativeCostUsd = readNumber(attributes, "usage.cost_usd");
      return;
    }
    default:
      if (ABSORBED_EVENTS.has(eventType)) return;
      addItem(scope, step, { kind: "notice", step, timestamp, eventType, attributes });
  }
}

function newModelCall(step: number, timestamp: string, attributes: Attributes): ModelCallItem {
  return {
    kind: "model-call",
    step,
    timestamp,
    model:
      readString(attributes, "gen_ai.request.model") ?? readString(attributes, "gen_ai.response.model") ?? "",
    messageCount: null,
    answered: false,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    durationMs: null,
    finishReason: null,
    text: null,
    toolCalls: [],
  };
}

function fillModelCall(item: ModelCallItem, attributes: Attributes): void {
  item.answered = true;
  item.model = readString(attributes, "gen_ai.response.model") ?? item.model;
  item.inputTokens = readNumber(attributes, "gen_ai.usage.input_tokens");
  item.outputTokens = readNumber(attributes, "gen_ai.usage.output_tokens");
  item.costUsd = readNumber(attributes, "model.cost_usd");
  item.durationMs = readNumber(attributes, "model.duration_ms");
  item.finishReason = readString(attributes, "gen_ai.response.finish_reason");
  item.text = readString(attributes, "model.text");
  const calls = attributes["model.tool_calls"];
  item.toolCalls = Array.isArray(calls)
    ? calls.map((call: unknown) => {
        const fields: Attributes = call !== null && typeof call === "object" ? (call as Attributes) : {};
        return { id: asText(fields.id), name: asText(fields.name), arguments: asText(fields.arguments) };
      })
    : [];
}

/** Start, end and refusal of one call meet on its id; without an id each event stands alone. */
function toolCallFor(scope: Scope, step: number, timestamp: string, attributes: Attributes): ToolCallItem {
  const id = readString(attributes, "tool_call.id");
  const known = id === null ? undefined : scope.toolCalls.get(id);
  if (known !== undefined) return known;
  const item: ToolCallItem = {
    kind: "tool-call",
    step,
    timestamp,
    id,
    name: readString(attributes, "tool_call.name") ?? "tool",
    arguments: null,
    outcome: "pending",
    errorType: null,
    message: null,
    summary: null,
    output: null,
    artifacts: [],
    durationMs: null,
  };
  if (id !== null) scope.toolCalls.set(id, item);
  addItem(scope, step, item);
  return item;
}

function fillToolResult(item: ToolCallItem, attributes: Attributes): void {
  const status = readString(attributes, "tool_call.status");
  const ok = attributes["tool_call.ok"] === true;
  item.outcome =
    ok || status === "success"
      ? "ok"
      : status === "refused" || status === "timeout" || status === "cancelled"
        ? status
        : "error";
  item.errorType = readString(attributes, "tool_call.error_type");
  item.message = readString(attributes, "tool_call.error_message") ?? item.message;
  item.summary = readString(attributes, "tool_call.summary");
  item.output = readString(attributes, "tool_call.output") ?? asText(attributes["tool_call.output"]);
  const artifacts = attributes["tool_call.artifacts"];
  item.artifacts = Array.isArray(artifacts) ? artifacts.map((artifact) => asText(artifact)) : [];
  item.durationMs = readNumber(attributes, "tool_call.duration_ms");
}
