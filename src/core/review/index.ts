/** The public face of this part of the core: what the doors may import. */
export { SEVERITIES, categoryRank, severityRank, type Finding, type Severity } from "./finding.js";
export { runReviewerPanel } from "./run-reviewer-panel.js";
