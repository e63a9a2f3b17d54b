import type { SubagentConfig } from "../config/operator-config-schema.js";
import { SubagentError } from "./subagent-error.js";

/** The only tools a subagent may ever have; shell is further limited to the read-only allowlist. */
export const SUBAGENT_READ_TOOLS = ["read_file", "list_dir", "glob", "grep", "shell"] as const;
export type SubagentReadToolName = (typeof SUBAGENT_READ_TOOLS)[number];

export const SUBAGENT_TOOL_PREFIX = "subagent_";

export interface SubagentDefinition {
  /** Lower-case letters, digits and `_`; the tool is `subagent_<name>`. */
  readonly name: string;
  /** What the parent model reads to choose this subagent. */
  readonly description: string;
  /** The subagent's role: the first part of its system prompt. */
  readonly instructions: string;
  /** A subset of SUBAGENT_READ_TOOLS; all of them when absent. */
  readonly tools?: readonly string[];
  readonly maxTurns?: number;
  readonly timeoutMs?: number;
}

const NAME_PATTERN = /^[a-z][a-z0-9_]{0,40}$/;

/** Checks a definition before any tool is built: a bad one is an operator error, reported at start-up. */
export function validateSubagentDefinition(definition: SubagentDefinition): SubagentDefinition {
  if (!NAME_PATTERN.test(definition.name)) {
    throw new SubagentError(
      "SUBAGENT_INVALID_CONFIG",
      `subagent name "${definition.name}" must match ${NAME_PATTERN.source}`,
    );
  }
  const readTools: readonly string[] = SUBAGENT_READ_TOOLS;
  const outside = (definition.tools ?? []).filter((tool) => !readTools.includes(tool));
  if (outside.length > 0) {
    throw new SubagentError(
      "SUBAGENT_INVALID_CONFIG",
      `subagent "${definition.name}" asks for ${outside.join(", ")}; subagents may only use ${SUBAGENT_READ_TOOLS.join(", ")}`,
    );
  }
  return definition;
}

export function subagentFromConfig(config: SubagentConfig): SubagentDefinition {
  return {
    name: config.name,
    description: config.description,
    instructions: config.instructions,
    tools: config.tools,
    maxTurns: config.max_turns,
    timeoutMs: config.timeout_ms,
  };
}
