export {
  createRedactor,
  KNOWN_SECRET_RULE_ID,
  type Redactor,
  type RedactorOptions,
} from "./create-redactor.js";
export { PREFIX_FRAGMENT_RULE_ID } from "./find-prefixed-tokens.js";
export { SECRET_ASSIGNMENT_RULE_ID } from "./find-secret-assignments.js";
export { PRIVATE_KEY_RULE_ID } from "./find-private-keys.js";
export { NETRC_PASSWORD_RULE_ID } from "./find-netrc-passwords.js";
export { AZURE_DEVOPS_PAT_RULE_ID } from "./find-azure-devops-pats.js";
export { PREFIXED_TOKEN_FORMATS, type PrefixedTokenFormat } from "./prefixed-token-formats.js";
export { CONTEXTUAL_SECRET_RULES, type ContextualSecretRule } from "./contextual-secret-rules.js";
export type { SecretRange } from "./secret-range.js";
export { scanWithSecretlint, type SecretlintFinding } from "./scan-with-secretlint.js";
export {
  createFence,
  FENCE_ID_REPLACEMENT,
  FENCE_MARKER_REPLACEMENT,
  FenceError,
  neutraliseFenceMarkers,
  type Fence,
  type FenceOptions,
} from "./create-fence.js";
export { cleanGitHubText, type CleanedGitHubText } from "./clean-github-text.js";
export { stripTerminalControls } from "./strip-terminal-controls.js";
export {
  applyOutputHygiene,
  safeFileStem,
  type OutputHygieneOptions,
  type OutputHygieneResult,
} from "./apply-output-hygiene.js";
