import { asText, readNumber, readString, type Attributes } from "./attribute-readers.js";
import { formatInteger } from "./format-values.js";

export type NoticeTone = "info" | "warn" | "danger" | "success" | "muted";

export interface NoticeDescription {
  readonly tone: NoticeTone;
  readonly label: string;
  readonly title: string;
  readonly detail: string | null;
}

/** How each non-tool, non-model event reads in the timeline; unknown events still get a line. */
export function describeNotice(eventType: string, attributes: Attributes): NoticeDescription {
  const value = (key: string): string => asText(attributes[key]);
  const tokens = (key: string): string => {
    const count = readNumber(attributes, key);
    return count === null ? "?" : formatInteger(count);
  };
  switch (eventType) {
    case "model-retry":
      return {
        tone: "warn",
        label: "retry",
        title: `Model call retried (attempt ${value("retry.attempt")}, waited ${value("retry.delay_ms")} ms)`,
        detail: readString(attributes, "retry.reason"),
      };
    case "model-fallback":
      return {
        tone: "warn",
        label: "fallback",
        title: `Fell back from ${value("fallback.from")} to ${value("fallback.to")}`,
        detail: readString(attributes, "fallback.reason"),
      };
    case "loop-detected":
      return {
        tone: "danger",
        label: "loop",
        title: "Loop detected: the model must answer without tools",
        detail: readString(attributes, "loop.description"),
      };
    case "context-warning": {
      const used = readNumber(attributes, "context.used_tokens");
      const window = readNumber(attributes, "context.window_tokens");
      const share =
        used !== null && window !== null && window > 0 ? ` (${Math.round((used / window) * 100)}%)` : "";
      return {
        tone: "warn",
        label: "context",
        title: `Context at ${tokens("context.used_tokens")} of ${tokens("context.window_tokens")} tokens${share}`,
        detail: null,
      };
    }
    case "context-pruned":
      return {
        tone: "info",
        label: "pruned",
        title: `Pruned ${value("context.pruned_count")} old observation(s): ${tokens("context.tokens_before")} → ${tokens("context.tokens_after")} tokens`,
        detail: null,
      };
    case "context-compacted":
      return {
        tone: "info",
        label: "compacted",
        title: `Compacted older turns into a summary: ${tokens("context.tokens_before")} → ${tokens("context.tokens_after")} tokens`,
        detail:
          readNumber(attributes, "context.summary_tokens") === null
            ? null
            : `Summary: ${tokens("context.summary_tokens")} tokens`,
      };
    case "run-resumed":
      return {
        tone: "info",
        label: "resumed",
        title: "Run resumed from its checkpoint",
        detail:
          attributes["resume.interrupted_calls"] === undefined
            ? null
            : `${value("resume.interrupted_calls")} interrupted call(s) reported to the model`,
      };
    case "run-finished": {
      const exitReason = readString(attributes, "run.exit_reason") ?? "unknown";
      return {
        tone: exitReason === "final_answer" ? "success" : "danger",
        label: "finished",
        title: `Run finished: ${exitReason}`,
        detail: readString(attributes, "run.final_answer"),
      };
    }
    default:
      return { tone: "muted", label: "event", title: eventType, detail: null };
  }
}

/** Exit reasons that mean the run did what it was asked, for the colour of the badge. */
export function exitTone(exitReason: string | null): NoticeTone {
  if (exitReason === null) return "muted";
  if (exitReason === "final_answer") return "success";
  if (exitReason === "max_turns" || exitReason === "budget_exhausted" || exitReason === "cancelled")
    return "warn";
  return "danger";
}
