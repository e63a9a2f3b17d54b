import { z } from "zod";

/**
 * Conclusions that mean the code on the branch is red. From GitHub's check suite and workflow run
 * documentation: `failure`, `timed_out` and `startup_failure` are failures of the run itself.
 * Left out on purpose: `action_required` (a person must approve or act, e.g. a first-time
 * contributor's workflow: no commit fixes that), `cancelled`, `stale`, `neutral`, `skipped`.
 */
export const RED_CONCLUSIONS: ReadonlySet<string> = new Set(["failure", "timed_out", "startup_failure"]);

/** Event names (with their action) this derivation answers. */
export const CI_FAILURE_EVENT_NAMES = ["check_suite.completed", "workflow_run.completed"] as const;

/**
 * A red check suite or workflow run on the head of a pull request of this repository: a candidate
 * for an automatic "fix ci". Whether the pull request is the bot's own, whether the commit is
 * still its head, its mode and the attempts left are read from GitHub next (`decideCiFix`).
 */
export type CiFailure =
  | {
      readonly kind: "job";
      readonly trigger: "ci-failure";
      readonly number: number;
      readonly headSha: string;
      readonly headBranch: string;
      /** What went red, for the logs: the suite's app or the workflow's name. */
      readonly what: string;
    }
  | { readonly kind: "nothing"; readonly reason: string };

const pullRequestRef = z.looseObject({
  number: z.number().int().positive(),
  head: z.looseObject({
    ref: z.string().min(1),
    sha: z.string().min(1),
    repo: z.looseObject({ id: z.number() }).nullish(),
  }),
});

const repository = z.looseObject({ id: z.number() });

const checkSuiteSchema = z.looseObject({
  action: z.literal("completed"),
  check_suite: z.looseObject({
    head_branch: z.string().nullable(),
    head_sha: z.string().min(1),
    conclusion: z.string().nullable(),
    pull_requests: z.array(pullRequestRef),
    app: z.looseObject({ slug: z.string().optional(), name: z.string().optional() }).nullish(),
  }),
  repository,
});

const workflowRunSchema = z.looseObject({
  action: z.literal("completed"),
  workflow_run: z.looseObject({
    name: z.string().nullish(),
    head_branch: z.string().nullable(),
    head_sha: z.string().min(1),
    conclusion: z.string().nullable(),
    pull_requests: z.array(pullRequestRef),
  }),
  repository,
});

export interface CiFailureOptions {
  /** This app's slug: its own check suite (the trace summary) going red is not CI to fix. */
  readonly appSlug: string;
}

/**
 * `eventName` carries the action (`check_suite.completed`). Returns null for an event this
 * derivation does not cover, and `nothing` with the reason for one it covers that asks no work.
 * Decided from the payload alone, so the App answers most suites before any request to GitHub.
 */
export function deriveCiFailure(
  eventName: string,
  payload: unknown,
  options: CiFailureOptions,
): CiFailure | null {
  switch (eventName) {
    case "check_suite.completed": {
      const parsed = checkSuiteSchema.safeParse(payload);
      if (!parsed.success) return nothing(`the check_suite payload is not usable: ${parsed.error.message}`);
      const suite = parsed.data.check_suite;
      const app = suite.app?.slug ?? suite.app?.name ?? "an app";
      if (app.toLowerCase() === options.appSlug.toLowerCase())
        return nothing("the suite is this app's own check run");
      return fromRun({ ...suite, what: `the ${app} check suite` }, parsed.data.repository.id);
    }
    case "workflow_run.completed": {
      const parsed = workflowRunSchema.safeParse(payload);
      if (!parsed.success) return nothing(`the workflow_run payload is not usable: ${parsed.error.message}`);
      const run = parsed.data.workflow_run;
      return fromRun({ ...run, what: `the workflow ${run.name ?? "run"}` }, parsed.data.repository.id);
    }
    default:
      return null;
  }
}

function nothing(reason: string): CiFailure {
  return { kind: "nothing", reason };
}

function fromRun(
  run: {
    readonly head_branch: string | null;
    readonly head_sha: string;
    readonly conclusion: string | null;
    readonly pull_requests: readonly z.output<typeof pullRequestRef>[];
    readonly what: string;
  },
  repositoryId: number,
): CiFailure {
  if (run.conclusion === null || !RED_CONCLUSIONS.has(run.conclusion))
    return nothing(
      `${run.what} concluded ${run.conclusion ?? "without a conclusion"}, which is not a failure`,
    );
  // GitHub lists only pull requests whose head is in this repository; a fork's is never the bot's.
  const pull = run.pull_requests.find(
    (candidate) =>
      candidate.head.sha === run.head_sha &&
      (candidate.head.repo === undefined ||
        candidate.head.repo === null ||
        candidate.head.repo.id === repositoryId),
  );
  if (pull === undefined)
    return nothing(
      run.pull_requests.length === 0
        ? `${run.what} is not on a pull request's branch`
        : `${run.what} ran on ${run.head_sha.slice(0, 7)}, no longer the head of its pull request`,
    );
  return {
    kind: "job",
    trigger: "ci-failure",
    number: pull.number,
    headSha: run.head_sha,
    headBranch: pull.head.ref,
    what: run.what,
  };
}
