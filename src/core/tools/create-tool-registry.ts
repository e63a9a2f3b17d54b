import type { ToolCall, ToolDefinition } from "../model/model-types.js";
import type { ApprovalGate } from "./approval-gate.js";
import type { ContentSafety } from "./content-safety.js";
import type { Tool, ToolContext } from "./tool.js";
import { errorResult, type ToolResult } from "./tool-result.js";
import { runWithTimeout } from "./run-with-timeout.js";
import { scopeCommandRunner } from "./scope-command-runner.js";
import { toolInputJsonSchema } from "./tool-input-json-schema.js";
import { makeToolResultSafe } from "./make-tool-result-safe.js";
import { formatIssues, parseToolArguments, quoteArguments } from "./parse-tool-arguments.js";

/** Runs after a tool, before tracing; may replace the result (operator hooks, pinned facts). */
export type AfterToolHook = (
  event: {
    readonly call: ToolCall;
    readonly tool: Tool;
    readonly input: unknown;
    readonly result: ToolResult;
  },
  context: ToolContext,
) => Promise<ToolResult | void> | ToolResult | void;

export interface ToolRegistryOptions {
  readonly tools: readonly Tool[];
  readonly approvalGate: ApprovalGate;
  readonly safety: ContentSafety;
  /** Tools the model may call. A tool outside this set is refused at invoke, not only hidden. */
  readonly isAllowed: (tool: Tool) => boolean;
  readonly defaultTimeoutMs?: number;
  readonly maxOutputChars?: number;
  readonly afterToolHooks?: readonly AfterToolHook[];
  /**
   * Read-only sessions (plan mode, reviewers, subagents): every command a tool or hook runs gets
   * the workspace mounted read-only, so no judging mistake can write it.
   */
  readonly readOnlyWorkspace?: boolean;
}

/** Everything the loop needs about one invocation: the typed result and what the model reads. */
export interface ToolInvocation {
  readonly call: ToolCall;
  readonly toolName: string;
  /** Parsed and validated input, or undefined when validation failed. */
  readonly input: unknown;
  readonly result: ToolResult;
  /** The tool message content: status line by the harness plus the fenced body. */
  readonly rendered: string;
  readonly refused: boolean;
  /** The whole pipeline, from validation to the rendered message. */
  readonly durationMs: number;
  /** The part spent in the tool itself (and its after-tool hooks); 0 when it did not run. */
  readonly executeMs?: number;
}

/** Called around every call of a batch; the start hook is awaited before the tool runs (crash journal). */
export interface BatchHooks {
  readonly onStart?: (call: ToolCall) => Promise<void> | void;
  readonly onEnd?: (invocation: ToolInvocation) => Promise<void> | void;
}

export interface ToolRegistry {
  /** The JSON Schemas shown to the model, generated from the same zod schemas used to validate. */
  definitions(): ToolDefinition[];
  has(name: string): boolean;
  get(name: string): Tool | undefined;
  invoke(call: ToolCall, context: ToolContext): Promise<ToolInvocation>;
  /** Runs a batch: consecutive read-only calls run concurrently, everything else in order. */
  invokeBatch(
    calls: readonly ToolCall[],
    context: ToolContext,
    hooks?: BatchHooks,
  ): Promise<ToolInvocation[]>;
}

const DEFAULT_TIMEOUT_MS = 120_000;

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const tool of options.tools) {
    if (byName.has(tool.name))
      throw new Error(`Two tools are named "${tool.name}"; tool names must be unique.`);
    byName.set(tool.name, tool);
  }
  const definitions: ToolDefinition[] = [...byName.values()].filter(options.isAllowed).map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.jsonSchema ?? toolInputJsonSchema(tool.inputSchema),
    },
  }));

  // Named in the refusals only; built once, not on every call.
  const visible = definitions.map((definition) => definition.function.name);

  async function decide(
    call: ToolCall,
    context: ToolContext,
  ): Promise<{ tool?: Tool; input?: unknown; result?: ToolResult; refused: boolean }> {
    const name = call.function.name;
    const tool = byName.get(name);
    if (!tool) {
      return {
        refused: false,
        result: errorResult("TOOL_NOT_FOUND", {
          message: `There is no tool named "${name}".`,
          recovery_hint: `Call one of the available tools: ${visible.join(", ")}.`,
          next_actions: visible.slice(0, 5),
        }),
      };
    }
    if (!options.isAllowed(tool)) {
      return {
        tool,
        refused: true,
        result: errorResult("PERMISSION_DENIED", {
          status: "refused",
          message: `The tool "${name}" is not available in this session (mode or allowed-tools list).`,
          recovery_hint: `Use only the tools you were given: ${visible.join(", ")}.`,
          next_actions: visible.slice(0, 5),
        }),
      };
    }
    const parsed = parseToolArguments(call.function.arguments);
    if (!parsed.success) {
      return {
        tool,
        refused: false,
        result: errorResult("INVALID_ARGUMENTS", {
          message: `The arguments are not valid JSON (${parsed.error}). Received: ${quoteArguments(call.function.arguments)}`,
          recovery_hint: `Send the arguments of ${name} as one JSON object matching its schema.`,
          next_actions: [`call ${name} again with a JSON object`],
        }),
      };
    }
    const validated = tool.inputSchema.safeParse(parsed.value);
    if (!validated.success) {
      return {
        tool,
        refused: false,
        result: errorResult("INVALID_ARGUMENTS", {
          message: `The arguments do not match the schema of ${name}: ${formatIssues(validated.error)}`,
          recovery_hint: `Check the field names and types in the schema of ${name} and call it again.`,
          next_actions: [`call ${name} again with corrected arguments`],
        }),
      };
    }
    const input: unknown = validated.data;
    const action = tool.describeAction?.(input, context) ?? {};
    const decision = await options.approvalGate.decide({
      toolName: tool.name,
      kind: tool.kind,
      ...(action.command === undefined ? {} : { command: action.command }),
      ...(action.cwd === undefined ? {} : { cwd: action.cwd }),

      ...(action.paths === undefined ? {} : { paths: action.paths }),
      ...(tool.source?.startsWith("mcp:") ? { isMcp: true, isReadOnlySource: tool.kind === "read" } : {}),
    });
    if (!decision.allowed) {
      return {
        tool,
        input,
        refused: true,
        result: errorResult(tool.kind === "exec" ? "COMMAND_BLOCKED" : "PERMISSION_DENIED", {
          status: "refused",
          message: `Refused by the approval policy: ${decision.reason}`,
          recovery_hint:
            decision.suggestion ??
            "Choose an action the policy allows, or explain in your answer what a person should run.",
          next_actions: [
            "use a read-only tool instead",
            "finish with an answer that explains what is needed",
          ],
          ...(decision.details ? { metadata: { policy: decision.details } } : {}),
        }),
      };
    }
    return { tool, input, refused: false };
  }

  // One scoped context per context the loop passes in: built once, not per call.
  const scopedContexts = new WeakMap<ToolContext, ToolContext>();
  function scopeContext(context: ToolContext): ToolContext {
    if (options.readOnlyWorkspace !== true || context.commandRunner === undefined) return context;
    let scoped = scopedContexts.get(context);
    if (scoped === undefined) {
      scoped = {
        ...context,
        commandRunner: scopeCommandRunner(context.commandRunner, { readOnlyWorkspace: true }),
      };
      scopedContexts.set(context, scoped);
    }
    return scoped;
  }

  async function invoke(call: ToolCall, callerContext: ToolContext): Promise<ToolInvocation> {
    const startedAt = performance.now();
    const context = scopeContext(callerContext);
    const decided = await decide(call, context);
    let result = decided.result;
    const tool = decided.tool;
    let executeMs = 0;
    if (!result && tool) {
      const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timed = await runWithTimeout(tool, decided.input, context, timeoutMs);
      result = timed.result;
      // The tool's own work, and the commands of the after-tool hooks the operator configured.
      const hooks = options.afterToolHooks ?? [];
      const hooksStartedAt = performance.now();
      for (const hook of hooks) {
        result = (await hook({ call, tool, input: decided.input, result }, context)) ?? result;
      }
      executeMs = timed.executeMs + (hooks.length > 0 ? performance.now() - hooksStartedAt : 0);
    }
    const finalResult =
      result ??
      errorResult("INTERNAL_ERROR", { message: "No result.", recovery_hint: "Try again.", next_actions: [] });
    const safeResult = await makeToolResultSafe(
      finalResult,
      call.function.name,
      byName.get(call.function.name),
      options,
      context,
    );
    return {
      call,
      toolName: call.function.name,
      input: decided.input,
      result: safeResult.result,
      rendered: safeResult.rendered,
      refused: decided.refused,
      durationMs: performance.now() - startedAt,
      executeMs,
    };
  }

  async function invokeBatch(
    calls: readonly ToolCall[],
    context: ToolContext,
    hooks: BatchHooks = {},
  ): Promise<ToolInvocation[]> {
    const results: ToolInvocation[] = [];
    const run = async (call: ToolCall): Promise<ToolInvocation> => {
      const invocation = await invoke(call, context);
      await hooks.onEnd?.(invocation);
      return invocation;
    };
    let index = 0;
    while (index < calls.length) {
      const group: ToolCall[] = [];
      while (index < calls.length && isReadCall(calls[index]!)) group.push(calls[index++]!);
      if (group.length === 0) group.push(calls[index++]!);
      for (const call of group) await hooks.onStart?.(call);
      results.push(...(await Promise.all(group.map(run))));
    }
    return results;
  }

  function isReadCall(call: ToolCall): boolean {
    const tool = byName.get(call.function.name);
    return tool !== undefined && tool.kind === "read" && options.isAllowed(tool);
  }

  return {
    definitions: () => definitions,
    has: (name) => byName.has(name),
    get: (name) => byName.get(name),
    invoke,
    invokeBatch,
  };
}
