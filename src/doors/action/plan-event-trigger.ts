import { deriveCiFailure, type CiFailure } from "../github/commands/derive-ci-failure.js";
import {
  deriveEventTrigger,
  type EventTrigger,
  type EventTriggerOptions,
} from "../github/commands/derive-event-trigger.js";
import { APP_SLUG, type ActionEvent, type ActionPlan } from "./action-plan.js";

/** Who the automatic CI fix is by: the workflow token's bot, which opened the pull request. */
const WORKFLOW_BOT = { login: "github-actions[bot]", type: "Bot" } as const;

/**
 * The Action's side of the shared triggers (an issue assigned to the app, the app requested as a
 * reviewer, the trigger label, red CI on the bot's pull request): the same derivations the App
 * uses, as a plan. Null when the event is not one of them.
 */
export function planEventTrigger(
  event: ActionEvent,
  options: EventTriggerOptions & { readonly appSlug?: string },
): ActionPlan | null {
  const action =
    typeof event.payload === "object" &&
    event.payload !== null &&
    "action" in event.payload &&
    typeof event.payload.action === "string"
      ? event.payload.action
      : "";
  const name = `${event.name}.${action}`;
  const red = deriveCiFailure(name, event.payload, { appSlug: options.appSlug ?? APP_SLUG });
  if (red !== null) return toCiPlan(red, event);
  const derived = deriveEventTrigger(name, event.payload, options);
  return derived === null ? null : toPlan(derived, event);
}

/** Whether the pull request is the bot's own and attempts are left is asked of GitHub before the job (`confirmCiFix`). */
function toCiPlan(red: CiFailure, event: ActionEvent): ActionPlan {
  if (red.kind === "nothing") return { kind: "skip", reason: red.reason };
  return {
    kind: "job",
    job: {
      kind: "fix-ci",
      owner: event.owner,
      repo: event.repo,
      number: red.number,
      isPullRequest: true,
      requester: WORKFLOW_BOT.login,
      headSha: red.headSha,
      automatic: true,
    },
    requester: WORKFLOW_BOT,
    // Nobody asked: the bot fixes its own branch, within the attempts the repository allows.
    needsWriteAccess: false,
  };
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
