import { SandboxError } from "./sandbox-error.js";

/** The file descriptors the warm sandbox program expects (see warm-sandbox-script.ts). */
export const WARM_SANDBOX_FDS = { info: 3, block: 4, status: 5, sleep: 6, shell: 7 } as const;

/** Where the sandbox's own program runs from: an execute-only copy of bash (see build-bwrap-arguments.ts). */
export const WARM_SANDBOX_SHELL = "/run/agentforge/bash";

export interface WarmRequest {
  /** Random per command: names its end marker and its status line. */
  readonly nonce: string;
  readonly cwd: string;
  readonly assignments: readonly string[];
  readonly removals: readonly string[];
  readonly script: string;
}

export type WarmStatusLine =
  | { readonly kind: "ready" }
  | { readonly kind: "started"; readonly nonce: string }
  | { readonly kind: "done"; readonly nonce: string; readonly code: number; readonly clean: boolean };

const STARTED_LINE = /^started ([0-9a-f]{32})$/;
const DONE_LINE = /^done ([0-9a-f]{32}) (\d{1,3}) (clean|dirty)$/;

/** NUL-separated fields, in the order the program reads them. */
export function encodeWarmRequest(request: WarmRequest): Buffer {
  const fields = [
    request.nonce,
    request.cwd,
    String(request.assignments.length),
    ...request.assignments,
    String(request.removals.length),
    ...request.removals,
    request.script,
  ];
  if (fields.some((field) => field.includes("\0")))
    throw new SandboxError(
      "SANDBOX_BAD_OPTIONS",
      "A command or its environment contains a NUL byte.",
      "Remove the NUL byte.",
    );
  return Buffer.from(`${fields.join("\0")}\0`);
}

/** What the program writes after a command's own output, on stdout and on stderr. */
export function warmEndMarker(nonce: string): Buffer {
  return Buffer.from(`agentforge-end-${nonce}`);
}

export function parseWarmStatusLine(line: string): WarmStatusLine | undefined {
  if (line === "ready") return { kind: "ready" };
  const started = STARTED_LINE.exec(line);
  if (started !== null) return { kind: "started", nonce: started[1] ?? "" };
  const match = DONE_LINE.exec(line);
  if (match === null) return undefined;
  return { kind: "done", nonce: match[1] ?? "", code: Number(match[2]), clean: match[3] === "clean" };
}
