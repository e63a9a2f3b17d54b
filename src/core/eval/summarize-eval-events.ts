import type { LoopEvent } from "../loop/loop-events.js";

export interface EvalToolCall {
  readonly turn: number;
  readonly name: string;
  readonly status: string;
  readonly errorType?: string;
}

export interface EvalEventSummary {
  /** How often each event type was emitted. */
  readonly eventCounts: Readonly<Record<string, number>>;
  /** Tool error types in the order first seen. */
  readonly errorTypesSeen: readonly string[];
  readonly toolsRefused: readonly string[];
  /** Command lines of refused shell-like calls (any call whose arguments carry a `command`). */
  readonly commandsRefused: readonly string[];
  readonly toolCalls: readonly EvalToolCall[];
  /** The harness's own count of each request's tokens, by model call: what compaction acts on. */
  readonly contextTokens: readonly number[];
}

/** The facts of a run's event stream the judge and the report need. */
export function summarizeEvalEvents(events: readonly LoopEvent[]): EvalEventSummary {
  const eventCounts: Record<string, number> = {};
  const errorTypes = new Set<string>();
  const refused = new Set<string>();
  const refusedCommands = new Set<string>();
  const argumentsByCall = new Map<string, string>();
  const toolCalls: EvalToolCall[] = [];
  const contextTokens: number[] = [];
  for (const event of events) {
    eventCounts[event.type] = (eventCounts[event.type] ?? 0) + 1;
    if (event.type === "model-call-start") contextTokens.push(event.promptTokensEstimate);
    if (event.type === "tool-call-start") argumentsByCall.set(event.callId, event.arguments);
    if (event.type === "tool-call-refused") {
      refused.add(event.name);
      const command = commandOf(argumentsByCall.get(event.callId));
      if (command !== undefined) refusedCommands.add(command);
    }
    if (event.type === "tool-call-end") {
      const errorType = event.result.error?.error_type;
      if (errorType !== undefined) errorTypes.add(errorType);
      toolCalls.push({
        turn: event.turn,
        name: event.name,
        status: event.result.status,
        ...(errorType === undefined ? {} : { errorType }),
      });
    }
  }
  return {
    eventCounts,
    errorTypesSeen: [...errorTypes],
    toolsRefused: [...refused],
    commandsRefused: [...refusedCommands],
    toolCalls,
    contextTokens,
  };
}

function commandOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    // Malformed arguments are refused as INVALID_ARGUMENTS, never by the policy: no command to name.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  if (typeof parsed !== "object" || parsed === null || !("command" in parsed)) return undefined;
  return typeof parsed.command === "string" ? parsed.command : undefined;
}
