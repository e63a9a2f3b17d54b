import type { SubagentConfig } from "../config/operator-config-schema.js";
import type { RunLimits } from "../config/run-limits.js";
import type { ModelClient } from "../model/model-types.js";
import type { PendingApproval } from "../policy/create-policy-approval-gate.js";
import type { Redactor } from "../safety/create-redactor.js";
import type { AfterToolHookConfig } from "../session/create-after-tool-hooks.js";
import type { ApprovalRequest } from "../tools/approval-gate.js";
import type { CommandRunner, Tool } from "../tools/tool.js";

export interface AgentRunnerSettings {
  readonly limits: RunLimits;
  readonly contextWindow: number;
  /** The cap sent with every model call; the context keeps this much of the window free. */
  readonly maxOutputTokens?: number;
  /** The operator's command prefixes, allowed in every run besides the task's own. */
  readonly operatorAllowPrefixes?: readonly string[];
  readonly maxOutputChars?: number;
  readonly stream?: boolean;
  readonly configDigest: string;
}

/** Everything outside the core that a run needs, passed in by the door. */
export interface AgentRunnerDependencies {
  readonly model: ModelClient;
  /**
   * The client of another model a run may ask for (`RunInput.model`), with the same endpoint and
   * settings; it throws for a model that is not allowed. Without it only `model` can run.
   */
  readonly modelFor?: (name: string) => ModelClient;
  readonly dataDir: string;
  readonly settings: AgentRunnerSettings;
  /** Runs shell commands (the sandbox). Without it the shell tool is not offered. */
  readonly commandRunner?: CommandRunner;
  /** Tools of the operator's MCP servers, started once by the runtime. */
  readonly mcpTools?: readonly Tool[];
  /** Offers the read-only subagents (defaults plus the operator's). */
  readonly subagents?: { readonly operatorSubagents: readonly SubagentConfig[] };
  /** Operator hooks run in the sandbox after named tools succeed. */
  readonly afterToolHooks?: readonly AfterToolHookConfig[];
  /** Operator skill roots; the repository's `.agentforge/skills/` is added per task. */
  readonly skillRoots?: readonly string[];
  /** Exact values the process holds (model key, tokens, webhook secret). */
  readonly secrets?: readonly string[];
  /** A redactor the door already holds; the secrets above are added to it. */
  readonly redactor?: Redactor;
  /** Asks a person; only interactive doors pass it. Without it, needs-confirmation means refused. */
  readonly confirm?: (request: ApprovalRequest, pending: PendingApproval) => Promise<boolean>;
}
