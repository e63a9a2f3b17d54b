import type { z } from "zod";
import type { ToolResult } from "./tool-result.js";

/** What a tool does to the world; policy and plan mode decide on this, not on the name. */
export type ToolKind = "read" | "write" | "exec" | "network";

/** Runs a shell command inside the sandbox. Only the sandbox folder implements this. */
export interface CommandRunner {
  run(command: string, options: CommandRunOptions): Promise<CommandOutcome>;
}

export interface CommandRunOptions {
  readonly cwd: string;
  /** The whole checkout, writable inside the sandbox even when `cwd` is a sub-folder. */
  readonly workspaceRoot?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Network is off unless a setup phase asks for it. */
  readonly network?: boolean;
  readonly maxOutputBytes?: number;
  /** Extra environment variables explicitly named by the operator. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Shown to the command read-only, over or beside the workspace: the workspace's git metadata
   * (its git directory, the object stores it borrows, the `.git` entry). The workspace's own
   * `.git` is always read-only whether listed or not.
   */
  readonly readOnlyPaths?: readonly string[];
  /** The whole workspace is mounted read-only (plan mode, reviewers, subagents). */
  readonly readOnlyWorkspace?: boolean;
}

export interface CommandOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly outputTruncated: boolean;
  readonly durationMs: number;
}

/** What a tool gets when it runs. Everything it may touch is passed in here. */
export interface ToolContext {
  /** Real path (symlinks resolved) of the workspace root. */
  readonly workspaceRoot: string;
  /** A private scratch folder of the run for large outputs. */
  readonly scratchDir: string;
  readonly signal: AbortSignal;
  readonly runId: string;
  readonly commandRunner?: CommandRunner;
  /** Registered by the session for tools that need more (subagents, skills). */
  readonly services?: Readonly<Record<string, unknown>>;
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  readonly inputSchema: Schema;
  /** Overrides the registry's default tool timeout. */
  readonly timeoutMs?: number;
  /** The JSON Schema shown to the model when it is not generated from `inputSchema` (MCP tools). */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
  /** Where the output comes from, named in the untrusted-content fence. */
  readonly source?: string;
  /** Tells the approval gate what a call would do (the command for shell tools, paths for writes). */
  describeAction?(
    input: z.infer<Schema>,
    context: ToolContext,
  ): { readonly command?: string; readonly cwd?: string; readonly paths?: readonly string[] };
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolResult>;
}

/** Lets a tool file declare its input type once. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool<Schema> {
  return tool;
}
