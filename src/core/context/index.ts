/** Working memory: token counting, budgets, pinned facts, pruning and compaction. */
export { createTokenCounter, encodingForModel } from "./create-token-counter.js";
export type { EncodingChoice, EncodingName, TokenCounter } from "./create-token-counter.js";
export {
  createContextBudget,
  defaultReserveOutputTokens,
  DEFAULT_CONTEXT_THRESHOLDS,
} from "./context-budget.js";
export type { ContextBudget, ContextBudgetOptions, ContextThresholds } from "./context-budget.js";
export { createPinnedFacts, pinnedFactsFromJSON } from "./create-pinned-facts.js";
export type { PinnedFacts, PinnedFactsLedger } from "./create-pinned-facts.js";
export type { PinnedFactsData } from "./pinned-facts-data.js";
export { PINNED_FACTS_VERSION } from "./pinned-facts-data.js";
export type { RenderPinnedFactsOptions } from "./render-pinned-facts.js";
export { createContextManager } from "./create-context-manager.js";
export type {
  CompactionUsage,
  ContextEvent,
  ContextManager,
  ContextManagerOptions,
  ContextTokens,
  PrepareInput,
  PrepareResult,
} from "./context-manager-types.js";
export { createModelCompactor } from "./create-model-compactor.js";
export type { CompactionOutcome, Compactor, ModelCompactorOptions } from "./create-model-compactor.js";
export { validateTranscript } from "./validate-transcript.js";
export type { TranscriptValidation } from "./validate-transcript.js";
export { ContextError } from "./context-error.js";
export type { ContextErrorCode } from "./context-error.js";
