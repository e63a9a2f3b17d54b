import { z } from "zod";
import { isBotSender } from "./authorize-commenter.js";
import { readConversationMode } from "./conversation-mode.js";

/**
 * Events that start work without a comment: an issue assigned to the app starts a fix, the app
 * requested as a pull request's reviewer starts a review, and the repository's trigger label
 * starts a fix on an issue or a review on a pull request. The App and the Action both read them
 * here, so each trigger is written once and behaves the same on both doors.
 */
export type EventTrigger =
  | {
      readonly kind: "job";
      readonly trigger: "assignment" | "review-request" | "label";
      readonly command: { readonly kind: "fix" } | { readonly kind: "review" };
      readonly number: number;
      readonly isPullRequest: boolean;
      /** Whoever assigned, requested or labelled: the door checks their permission. */
      readonly requester: { readonly login: string; readonly type?: string | undefined };
      readonly headSha: string | null;
      /** The label added, for a label trigger; null otherwise. */
      readonly label: string | null;
    }
  | { readonly kind: "nothing"; readonly reason: string };

const account = z.looseObject({ login: z.string().min(1).max(100), type: z.string().optional() });
const labels = z.array(z.looseObject({ name: z.string() })).nullish();

const assignedSchema = z.looseObject({
  action: z.literal("assigned"),
  assignee: account.nullish(),
  issue: z.looseObject({
    number: z.number().int().positive(),
    state: z.string().optional(),
    pull_request: z.unknown().optional(),
    labels,
  }),
  sender: account,
});

const reviewRequestedSchema = z.looseObject({
  action: z.literal("review_requested"),
  // A team request carries `requested_team` instead.
  requested_reviewer: account.nullish(),
  pull_request: z.looseObject({
    number: z.number().int().positive(),
    state: z.string(),
    head: z.looseObject({ sha: z.string().min(1) }),
    labels,
  }),
  sender: account,
});

const labeledSchema = z.looseObject({
  action: z.literal("labeled"),
  // A label deleted from the repository arrives without one.
  label: z.looseObject({ name: z.string() }).nullish(),
  issue: z.looseObject({
    number: z.number().int().positive(),
    state: z.string().optional(),
    pull_request: z.unknown().optional(),
    labels,
  }),
  sender: account,
});

const pullRequestLabeledSchema = z.looseObject({
  action: z.literal("labeled"),
  label: z.looseObject({ name: z.string() }).nullish(),
  pull_request: z.looseObject({ number: z.number().int().positive(), state: z.string(), labels }),
  sender: account,
});

/** Event names (with their action) this derivation answers; any other is not its business. */
export const EVENT_TRIGGER_NAMES = [
  "issues.assigned",
  "pull_request.review_requested",
  // A label on an issue arrives as `issues`; on a pull request, as `pull_request`.
  "issues.labeled",
  "pull_request.labeled",
] as const;

export interface EventTriggerOptions {
  /** The logins that are this app, e.g. `agentforge[bot]`; compared without regard to case. */
  readonly appLogins: readonly string[];
  /**
   * The label that starts work (the Action's `trigger-label` input), compared without regard to
   * case; without one, no label starts anything. `ANY_LABEL` lets every label through and leaves
   * the comparison to the door (`isTriggerLabel`): the App, whose label is in the repository's
   * config, reads that config only for a label event that passed every other check.
   */
  readonly triggerLabel?: string | typeof ANY_LABEL | undefined;
}

export const ANY_LABEL = Symbol("any label");

/** Label names compare without regard to case, as GitHub treats them. */
export function isTriggerLabel(added: string | null, trigger: string | undefined): boolean {
  return added !== null && trigger !== undefined && added.toLowerCase() === trigger.toLowerCase();
}

function isApp(login: string, options: EventTriggerOptions): boolean {
  const lower = login.toLowerCase();
  return options.appLogins.some((candidate) => candidate.toLowerCase() === lower);
}

/**
 * `eventName` carries the action (`issues.assigned`). Returns null for an event this derivation
 * does not cover, and `nothing` with the reason for one it covers but that asks for no work.
 */
export function deriveEventTrigger(
  eventName: string,
  payload: unknown,
  options: EventTriggerOptions,
): EventTrigger | null {
  switch (eventName) {
    case "issues.assigned":
      return deriveAssignment(payload, options);
    case "pull_request.review_requested":
      return deriveReviewRequest(payload, options);
    case "issues.labeled":
      return deriveIssueLabel(payload, options);
    case "pull_request.labeled":
      return derivePullRequestLabel(payload, options);
    default:
      return null;
  }
}

const IGNORED_REASON = "the app was told to ignore this conversation (`ignore`); `resume` lifts it";

function nothing(reason: string): EventTrigger {
  return { kind: "nothing", reason };
}

function deriveAssignment(payload: unknown, options: EventTriggerOptions): EventTrigger {
  const parsed = assignedSchema.safeParse(payload);
  if (!parsed.success) return nothing(`the issues.assigned payload is not usable: ${parsed.error.message}`);
  const { assignee, issue, sender } = parsed.data;
  if (assignee === null || assignee === undefined || !isApp(assignee.login, options))
    return nothing("the issue was assigned to someone else");
  // An automation's choice may be assembled from anyone's input; a person must ask.
  if (isBotSender(sender)) return nothing(`assigned by the bot ${sender.login}`);
  if (issue.state !== undefined && issue.state !== "open") return nothing("the issue is not open");
  if (readConversationMode(issue.labels) === "ignored") return nothing(IGNORED_REASON);
  const isPullRequest = issue.pull_request !== undefined && issue.pull_request !== null;
  return {
    kind: "job",
    trigger: "assignment",
    // Assigning a pull request to the app asks it to look at it, not to rewrite it.
    command: isPullRequest ? { kind: "review" } : { kind: "fix" },
    number: issue.number,
    isPullRequest,
    requester: sender,
    headSha: null,
    label: null,
  };
}

function deriveReviewRequest(payload: unknown, options: EventTriggerOptions): EventTrigger {
  const parsed = reviewRequestedSchema.safeParse(payload);
  if (!parsed.success)
    return nothing(`the pull_request.review_requested payload is not usable: ${parsed.error.message}`);
  const { requested_reviewer: reviewer, pull_request: pull, sender } = parsed.data;
  if (reviewer === null || reviewer === undefined || !isApp(reviewer.login, options))
    return nothing("the review was requested from someone else");
  if (isBotSender(sender)) return nothing(`requested by the bot ${sender.login}`);
  if (pull.state !== "open") return nothing("the pull request is not open");
  if (readConversationMode(pull.labels) === "ignored") return nothing(IGNORED_REASON);
  return {
    kind: "job",
    trigger: "review-request",
    command: { kind: "review" },
    number: pull.number,
    isPullRequest: true,
    requester: sender,
    headSha: pull.head.sha,
    label: null,
  };
}

interface Labelled {
  readonly label: { readonly name: string } | null | undefined;
  readonly number: number;
  readonly state: string | undefined;
  readonly labels: readonly { readonly name: string }[] | null | undefined;
  readonly isPullRequest: boolean;
  readonly sender: { readonly login: string; readonly type?: string | undefined };
}

function deriveIssueLabel(payload: unknown, options: EventTriggerOptions): EventTrigger {
  const parsed = labeledSchema.safeParse(payload);
  if (!parsed.success) return nothing(`the issues.labeled payload is not usable: ${parsed.error.message}`);
  const { label, issue, sender } = parsed.data;
  const isPullRequest = issue.pull_request !== undefined && issue.pull_request !== null;
  return deriveLabel(
    { label, number: issue.number, state: issue.state, labels: issue.labels, isPullRequest, sender },
    options,
  );
}

function derivePullRequestLabel(payload: unknown, options: EventTriggerOptions): EventTrigger {
  const parsed = pullRequestLabeledSchema.safeParse(payload);
  if (!parsed.success)
    return nothing(`the pull_request.labeled payload is not usable: ${parsed.error.message}`);
  const { label, pull_request: pull, sender } = parsed.data;
  return deriveLabel(
    { label, number: pull.number, state: pull.state, labels: pull.labels, isPullRequest: true, sender },
    options,
  );
}

function deriveLabel(labelled: Labelled, options: EventTriggerOptions): EventTrigger {
  const { label, sender, isPullRequest } = labelled;
  const trigger = options.triggerLabel;
  if (trigger === undefined) return nothing("no trigger label is configured");
  const added = label?.name ?? null;
  if (trigger !== ANY_LABEL && !isTriggerLabel(added, trigger))
    return nothing(`the label added is not the trigger label "${trigger}"`);
  if (added === null) return nothing("the event names no label");
  // The app adds labels itself (pause, ignore); an automation's choice may be anyone's input.
  if (isBotSender(sender)) return nothing(`labelled by the bot ${sender.login}`);
  if (labelled.state !== undefined && labelled.state !== "open") return nothing("it is not open");
  // `ignore` leaves a conversation alone, labels included; `pause` stops only automatic reviews.
  if (readConversationMode(labelled.labels) === "ignored") return nothing(IGNORED_REASON);
  return {
    kind: "job",
    trigger: "label",
    command: isPullRequest ? { kind: "review" } : { kind: "fix" },
    number: labelled.number,
    isPullRequest,
    requester: sender,
    // A review reads the head when it runs; a label carries no push.
    headSha: null,
    label: added,
  };
}
