import type { ChatMessage, ToolCall } from "../model/model-types.js";
import type { ToolResult } from "../tools/tool-result.js";
import { errorResult } from "../tools/tool-result.js";
import type { RunCheckpoint } from "./run-checkpoint.js";

/**
 * How a run continues after a crash or a stop. The rule: a call with effects never runs twice, and
 * a call whose outcome is unknown is never run again behind the model's back. Read-only calls get
 * no "started" marker (the runner skips it: they have no effects to repeat), so one that a crash
 * cut short counts as never started and simply runs again.
 *
 * For every assistant message with tool calls, the calls that have no tool message after it are
 * settled in call order:
 * - completed (in `completedToolCalls`, from the checkpoint or the journal): its stored result
 *   is appended as the tool message, and the tool is not executed;
 * - never started (the journal is known and has no "started" marker for it), and only in the last
 *   assistant message: returned in `pendingCalls` for the loop to execute normally, since the
 *   marker is flushed to disk before a tool runs, so no marker means it never ran;
 * - otherwise it was started and not completed, or we cannot tell: it gets a recoverable
 *   INTERRUPTED result saying it was interrupted and its effects are unknown, so the model checks
 *   the state before deciding to retry.
 *
 * The returned history therefore answers every call except `pendingCalls`, whose results the
 * loop appends after executing them; the transcript is then valid for the provider again.
 */
export interface ResumePlan {
  readonly history: readonly ChatMessage[];
  readonly pendingCalls: readonly ToolCall[];
  readonly reusedResults: readonly {
    readonly callId: string;
    readonly name: string;
    readonly result: unknown;
  }[];
  readonly interruptedCalls: readonly {
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
    readonly result: ToolResult;
  }[];
}

export interface PlanResumeOptions {
  /**
   * Calls the journal marked as started. Leave undefined when the journal is unknown: every
   * unanswered, uncompleted call is then treated as interrupted.
   */
  readonly startedCallIds?: ReadonlySet<string>;
  /** Renders the interrupted-call result as the tool message (pass the registry's renderer). */
  readonly renderResult?: (name: string, result: ToolResult) => string;
  /** Renders a stored result that was saved without the message content. */
  readonly renderStoredResult?: (name: string, result: unknown) => string;
}

export const INTERRUPTED_CALL_MESSAGE =
  "this call was interrupted by a crash; its effects are unknown; check the state before retrying";

export function interruptedCallResult(name: string): ToolResult {
  return errorResult("INTERRUPTED", {
    status: "cancelled",
    recoverable: true,
    message: INTERRUPTED_CALL_MESSAGE,
    summary: `${name} was interrupted by a crash; effects unknown`,
    recovery_hint:
      "look at the files, branch or process this call would have changed to see whether it took effect, then decide whether to run it again",
    next_actions: [
      "inspect the state the call would have changed",
      `call ${name} again only if it did not take effect`,
    ],
  });
}

function defaultRenderResult(name: string, result: ToolResult): string {
  const lines = [`[${name}] ${result.status}: ${result.error?.error_type ?? result.status}`];
  if (result.error) lines.push(`error: ${result.error.message}`);
  if (result.recovery_hint) lines.push(`hint: ${result.recovery_hint}`);
  if (result.next_actions.length > 0) lines.push(`next: ${result.next_actions.join(" | ")}`);
  return lines.join("\n");
}

function defaultRenderStoredResult(_name: string, result: unknown): string {
  return JSON.stringify(result);
}

export function planResume(checkpoint: RunCheckpoint, options: PlanResumeOptions = {}): ResumePlan {
  const renderResult = options.renderResult ?? defaultRenderResult;
  const renderStored = options.renderStoredResult ?? defaultRenderStoredResult;
  const source = checkpoint.history;
  const history: ChatMessage[] = [];
  const pendingCalls: ToolCall[] = [];
  const reusedResults: { callId: string; name: string; result: unknown }[] = [];
  const interruptedCalls: { callId: string; name: string; arguments: string; result: ToolResult }[] = [];

  let index = 0;
  while (index < source.length) {
    const message = source[index] as ChatMessage;
    history.push(message);
    index += 1;
    if (message.role !== "assistant" || !message.tool_calls || message.tool_calls.length === 0) continue;

    const answered = new Set<string>();
    while (index < source.length) {
      const next = source[index] as ChatMessage;
      if (next.role !== "tool") break;
      answered.add(next.tool_call_id);
      history.push(next);
      index += 1;
    }
    const isLastTurn = index >= source.length;
    for (const call of message.tool_calls) {
      if (answered.has(call.id)) continue;
      answered.add(call.id);
      const name = call.function.name;
      const completed = checkpoint.completedToolCalls[call.id];
      if (completed) {
        history.push({
          role: "tool",
          tool_call_id: call.id,
          content: completed.content ?? renderStored(completed.name, completed.result),
        });
        reusedResults.push({ callId: call.id, name: completed.name, result: completed.result });
      } else if (isLastTurn && options.startedCallIds !== undefined && !options.startedCallIds.has(call.id)) {
        pendingCalls.push(call);
      } else {
        const result = interruptedCallResult(name);
        history.push({ role: "tool", tool_call_id: call.id, content: renderResult(name, result) });
        interruptedCalls.push({ callId: call.id, name, arguments: call.function.arguments, result });
      }
    }
  }
  return { history, pendingCalls, reusedResults, interruptedCalls };
}
