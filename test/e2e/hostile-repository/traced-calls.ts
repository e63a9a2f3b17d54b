import { WRITING_SPELLINGS } from "./attack-scripts.js";

/** How one tool call ended, as the trace tells it. */
export interface TracedCall {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly errorType: string | null;
  /** What the model got back: for a command that ran, its exit code, stdout and stderr. */
  readonly output: string;
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The `tool-call-end` events of one or more traces (JSON Lines), by call id. */
export function readTracedCalls(traceText: string): Map<string, TracedCall> {
  const calls = new Map<string, TracedCall>();
  for (const line of traceText.split("\n")) {
    if (!line.startsWith("{")) continue;
    const record = JSON.parse(line) as { event_type?: string; attributes?: Record<string, unknown> };
    if (record.event_type !== "tool-call-end") continue;
    const attributes = record.attributes ?? {};
    const id = String(attributes["tool_call.id"]);
    calls.set(id, {
      id,
      name: String(attributes["tool_call.name"]),
      status: String(attributes["tool_call.status"]),
      errorType: (attributes["tool_call.error_type"] as string | null | undefined) ?? null,
      output: textOf(attributes["tool_call.output"]) || textOf(attributes["tool_call.error_message"]),
    });
  }
  return calls;
}

/** A command the policy let run (it reached the sandbox), as opposed to one it refused. */
export function ranInSandbox(call: TracedCall | undefined): boolean {
  return call !== undefined && call.errorType !== "COMMAND_BLOCKED" && /exit code:/.test(call.output);
}

/**
 * For each writing spelling (calls `<prefix>_<index>`): whether the policy let it run, and if so
 * whether its write met the read-only mount. Spellings that run are the policy's to close; the
 * mount is what keeps them harmless meanwhile.
 */
export function describeSpellings(calls: ReadonlyMap<string, TracedCall>, prefix: string): string[] {
  return WRITING_SPELLINGS.map((spelling, index) => {
    const call = calls.get(`${prefix}_${index}`);
    if (call === undefined) return `${spelling.label}: no result in the trace`;
    if (!ranInSandbox(call)) return `${spelling.label}: refused (${call.errorType ?? call.status})`;
    const refusedByKernel = /Read-only file system/.test(call.output);
    return `${spelling.label}: ran, ${refusedByKernel ? "the kernel refused its write" : "tried no write"} — \`${spelling.command}\``;
  });
}

/**
 * A git command run inside a committed bare-repository look-alike is stopped by one of two layers:
 * the policy refuses git outside the workspace root, and git in the sandbox, pinned to
 * `safe.bareRepository=explicit`, refuses the folder. Either way nothing of the folder's config runs.
 */
export const BARE_REFUSAL = /cannot use bare repository|runs git outside the workspace root/;
