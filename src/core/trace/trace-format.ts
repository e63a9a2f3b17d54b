/** The trace file format: JSON Lines, one header, one line per event, one footer. */
export const TRACE_SCHEMA = "agentforge-trace/1";

export interface TraceHeader {
  readonly record: "header";
  readonly schema: typeof TRACE_SCHEMA;
  readonly run_id: string;
  readonly task: string;
  readonly user_goal: string;
  readonly start_time: string;
  readonly model: string;
  readonly config_digest: string;
  readonly workspace?: string;
  readonly mode?: string;
  readonly approval_mode?: string;
}

export interface TraceEvent {
  readonly record: "event";
  readonly event_type: string;
  readonly step: number;
  readonly timestamp: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface TraceFooter {
  readonly record: "footer";
  readonly finish_time: string;
  readonly exit_reason: string;
  readonly turns: number;
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  };
  /** Null when a model call had no known price or usage. */
  readonly cost_usd: number | null;
  /** Calls that write, execute or reach the network, and how many were refused (absent in older traces). */
  readonly actions?: { readonly attempted: number; readonly refused: number };
  readonly error?: string;
}

export type TraceLine = TraceHeader | TraceEvent | TraceFooter;
