import {
  deriveEventTrigger,
  type EventTrigger,
  type EventTriggerOptions,
} from "../github/commands/derive-event-trigger.js";
import type { ActionEvent, ActionPlan } from "./action-plan.js";

/**
 * The Action's side of the shared triggers (an issue assigned to the app, the app requested as a
 * reviewer, the trigger label): the same derivation the App uses, as a plan. Null when the event
 * is not one of them.
 */
export function planEventTrigger(event: ActionEvent, options: EventTriggerOptions): ActionPlan | null {
  const action =
    typeof event.payload === "object" &&
    event.payload !== null &&
    "action" in event.payload &&
    typeof event.payload.action === "string"
      ? event.payload.action
      : "";
  const derived = deriveEventTrigger(`${event.name}.${action}`, event.payload, options);
  return derived === null ? null : toPlan(derived, event);
}

function toPlan(derived: EventTrigger, event: ActionEvent): ActionPlan {
  if (derived.kind === "nothing") return { kind: "skip", reason: derived.reason };
  return {
    kind: "job",
    job: {
      kind: derived.command.kind,
      owner: event.owner,
      repo: event.repo,
      number: derived.number,
      isPullRequest: derived.isPullRequest,
      requester: derived.requester.login,
      ...(derived.headSha === null ? {} : { headSha: derived.headSha }),
    },
    requester: derived.requester,
    // Assigning, requesting reviewers and labelling are a person's choice; the same rule as every command.
    needsWriteAccess: true,
  };
}
