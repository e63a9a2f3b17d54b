// Apart from triage-delivery.ts so the intake thread can name the events without loading triage
// (and with it the handlers, the payload schemas and the core).
/** Every event intake answers; `admitDelivery` and `triageDelivery` each have a case for each. */
export const INTAKE_EVENTS = [
  "issue_comment.created",
  "pull_request_review_comment.created",
  "pull_request.opened",
  "pull_request.ready_for_review",
  "pull_request.synchronize",
  "pull_request.reopened",
  "issues.labeled",
  "pull_request.labeled",
  "issues.assigned",
  "pull_request.review_requested",
  "check_suite.completed",
  "workflow_run.completed",
] as const;

export type IntakeEventName = (typeof INTAKE_EVENTS)[number];

export function isIntakeEventName(name: string): name is IntakeEventName {
  return (INTAKE_EVENTS as readonly string[]).includes(name);
}
