/** The public face of this part of the core: what the doors may import. */
export { APPROVAL_MODES, isApprovalMode } from "./approval-mode.js";
export { setBashGrammarDirectory } from "./bash-grammar-location.js";
export { runPolicyCheck } from "./run-policy-check.js";
