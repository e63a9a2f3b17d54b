import { z } from "zod";
import { decideCiFix } from "../github/commands/decide-ci-fix.js";
import { deriveCiFailure } from "../github/commands/derive-ci-failure.js";
import { postReply } from "../github/github-replies.js";
import { findSpentBudget } from "./find-spent-budget.js";
import { taskKeyOf } from "./github-request.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { readRepositoryConfig } from "./read-repository-config.js";
import { parseWebhookPayload } from "./webhook-payloads.js";

export type CiFailureDecision =
  "not-for-app" | "redelivery" | "config-invalid" | "budget-spent" | "enqueued" | "duplicate" | "answered";

const envelopeSchema = z.object({
  repository: z.object({ name: z.string().min(1), owner: z.object({ login: z.string().min(1) }) }),
  installation: z.object({ id: z.number().int().positive() }),
});

/**
 * `check_suite.completed` and `workflow_run.completed`: red CI on the head of one of the app's own
 * pull requests starts an automatic "fix ci", within `ci.max_fix_attempts`; at the limit it says
 * once what still fails. Nobody asked, so there is no permission to check and no 👀 to add; the
 * requester is the app itself. Anything else ends quietly, with the reason in the log.
 */
export async function handleCiFailure(
  event: IntakeEvent,
  deps: IntakeDependencies,
): Promise<CiFailureDecision> {
  const envelope = parseWebhookPayload(envelopeSchema, event.name, event.payload);
  const owner = envelope.repository.owner.login;
  const repo = envelope.repository.name;
  const installationId = envelope.installation.id;
  const derived = deriveCiFailure(event.name, event.payload, { appSlug: deps.appSlug });
  const quiet = (reason: string | undefined): CiFailureDecision => {
    deps.logger.debug({ delivery: event.id, owner, repo, reason }, "red CI asks nothing of the app");
    return "not-for-app";
  };
  if (derived === null || derived.kind === "nothing") return quiet(derived?.reason);
  const { number } = derived;
  const log = { delivery: event.id, owner, repo, number, trigger: derived.trigger, what: derived.what };
  if (await deps.queue.hasDelivery(event.id)) return "redelivery";
  const config = await readRepositoryConfig(event);
  if (!config.success) {
    // Nobody asked: a broken config is reported where a person asks, not on every red suite.
    deps.logger.warn({ ...log, problem: config.error.kind }, "repository config stops the CI fix");
    return "config-invalid";
  }
  const appLogin = `${deps.appSlug}[bot]`;
  const decision = await decideCiFix(
    event.octokit,
    { owner, repo, number, headSha: derived.headSha },
    {
      ownLogins: [appLogin],
      ownAppSlug: deps.appSlug,
      branchPrefix: config.value.branch_prefix,
      maxAttempts: config.value.ci.max_fix_attempts,
      mention: `@${deps.appSlug}`,
    },
  );
  if (decision.kind === "nothing") return quiet(decision.reason);
  const source = { kind: "issue" as const, owner, repo, issueNumber: number };
  const key = taskKeyOf({ owner, repo, number });
  if (decision.kind === "stop") {
    // Remembered per pull request, first: a redelivery, or a second red suite (check_suite and
    // workflow_run both arrive for one Actions failure) handled meanwhile, does not say it twice.
    if (await deps.queue.rememberDelivery(`ci-fix-stopped:${key}`))
      await postReply(event.octokit, source, decision.comment, deps.redact);
    deps.logger.info({ ...log, failing: decision.failingChecks }, "CI fix attempts spent: said so");
    return "answered";
  }
  const spent = await findSpentBudget(deps, installationId);
  if (spent !== null) {
    // No comment on every red suite: the budget comment answers the next person who asks.
    deps.logger.info({ ...log, reason: spent.reason }, "budget spent: CI not fixed");
    return "budget-spent";
  }
  const result = await deps.queue.enqueue({
    // One attempt per head commit, however many red suites report it: the queue refuses the
    // second task for this id, before the first attempt's marker is even on GitHub.
    deliveryId: `ci-fix:${key}@${decision.headSha}`,
    key,
    installationId,
    payload: {
      deliveryId: event.id,
      eventName: event.name,
      installationId,
      owner,
      repo,
      number,
      isPullRequest: true,
      command: { kind: "fix-ci", automatic: true },
      trigger: "ci-failure",
      requester: appLogin,
      commentId: null,
      headSha: decision.headSha,
      beforeSha: null,
      reviewComment: null,
      receivedAt: deps.now(),
    },
  });
  if (!result.accepted) return "duplicate";
  deps.logger.info({ ...log, taskId: result.taskId, attempt: decision.attempt }, "CI fix enqueued");
  return "enqueued";
}
