export { createSubagentTools, type SubagentToolsOptions } from "./create-subagent-tools.js";
export { DEFAULT_SUBAGENTS } from "./default-subagents.js";
export {
  runSubagentsInParallel,
  type ParallelSubagentOptions,
  type SubagentTask,
} from "./run-subagents-in-parallel.js";
export { SUBAGENT_SERVICE } from "./run-subagent.js";
export {
  SUBAGENT_READ_TOOLS,
  SUBAGENT_TOOL_PREFIX,
  subagentFromConfig,
  type SubagentDefinition,
} from "./subagent-definition.js";
export { SubagentError, type SubagentErrorCode } from "./subagent-error.js";
