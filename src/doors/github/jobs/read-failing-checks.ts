import { z } from "zod";
import type { UntrustedInput } from "../../../core/agent-run.js";
import { cleanGitHubText, stripTerminalControls } from "../../../core/safety/index.js";
import { statusOf, type GitHubRequester } from "../pull-request/github-requester.js";
import { RED_CONCLUSIONS } from "../commands/derive-ci-failure.js";
import { CHECK_RUN_NAME } from "./create-check-run.js";

export interface FailingCheck {
  readonly id: number;
  readonly name: string;
  readonly conclusion: string;
  /** The app that ran it (`github-actions` for a workflow job). */
  readonly appSlug: string | null;
}

export interface FailingChecks {
  readonly checks: readonly FailingCheck[];
  /** What the checks said (output, annotations, log tails), cleaned, redacted and capped: data for the model. */
  readonly untrustedInputs: readonly UntrustedInput[];
}

export interface CheckTarget {
  readonly owner: string;
  readonly repo: string;
  /** The commit whose checks are read (the pull request's head). */
  readonly ref: string;
}

export interface ReadFailingChecksOptions {
  /** Applied to every text before it is kept: the door's redactor (tokens, secrets). */
  readonly redact: (text: string) => string;
  /** This app's slug: its own check run (the trace summary) is not CI to fix. */
  readonly ownAppSlug: string;
}

/** Limits on what one attempt reads; a noisy suite must not crowd out the task. */
export const CHECK_LIMITS = {
  checks: 10,
  outputChars: 8_000,
  annotations: 50,
  logLines: 200,
  logBytes: 20_000,
} as const;

const PAGE_SIZE = 100;
const MAX_PAGES = 10;

// GET /repos/{owner}/{repo}/commits/{ref}/check-runs: `{ total_count, check_runs: [check-run] }`.
const checkRunSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable(),
  output: z
    .looseObject({
      title: z.string().nullish(),
      summary: z.string().nullish(),
      text: z.string().nullish(),
      annotations_count: z.number().optional(),
    })
    .nullish(),
  app: z.looseObject({ slug: z.string().optional() }).nullish(),
});
const checkRunsSchema = z.looseObject({ total_count: z.number(), check_runs: z.array(checkRunSchema) });
type CheckRun = z.output<typeof checkRunSchema>;

// GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations: `[check-annotation]`.
const annotationsSchema = z.array(
  z.looseObject({
    path: z.string(),
    start_line: z.number().nullish(),
    end_line: z.number().nullish(),
    annotation_level: z.string().nullish(),
    title: z.string().nullish(),
    message: z.string().nullish(),
  }),
);

async function listRedCheckRuns(
  octokit: GitHubRequester,
  target: CheckTarget,
  ownAppSlug: string,
): Promise<CheckRun[]> {
  const red: CheckRun[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
      owner: target.owner,
      repo: target.repo,
      ref: target.ref,
      // `latest`: a re-run replaces the earlier run of the same check.
      filter: "latest",
      per_page: PAGE_SIZE,
      page,
    });
    const parsed = checkRunsSchema.safeParse(response.data);
    if (!parsed.success) throw new Error(`unexpected check runs response: ${parsed.error.message}`);
    for (const run of parsed.data.check_runs) {
      // This bot's own check run (the App's, or the Action's under the workflow's app) is not CI.
      if (run.app?.slug?.toLowerCase() === ownAppSlug.toLowerCase() || run.name === CHECK_RUN_NAME) continue;
      if (run.status === "completed" && run.conclusion !== null && RED_CONCLUSIONS.has(run.conclusion))
        red.push(run);
    }
    if (parsed.data.check_runs.length < PAGE_SIZE) break;
  }
  return red;
}

function toFailingCheck(run: CheckRun): FailingCheck {
  return { id: run.id, name: run.name, conclusion: run.conclusion ?? "", appSlug: run.app?.slug ?? null };
}

/** The failing check runs on a commit, by name: enough for a comment that says what still fails. */
export async function listFailingChecks(
  octokit: GitHubRequester,
  target: CheckTarget,
  ownAppSlug: string,
): Promise<FailingCheck[]> {
  return (await listRedCheckRuns(octokit, target, ownAppSlug)).map(toFailingCheck);
}

function cap(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}\n…(cut)` : text;
}

/**
 * Reads what the failing checks on a commit say: each one's output (title, summary, text), its
 * annotations and, for a GitHub Actions job, the tail of its log. All of it was written by code on
 * the branch or by other apps, so it is data for the model, never instructions: cleaned like any
 * GitHub text, redacted, capped, and handed over as untrusted inputs the core fences.
 */
export async function readFailingChecks(
  octokit: GitHubRequester,
  target: CheckTarget,
  options: ReadFailingChecksOptions,
): Promise<FailingChecks> {
  const runs = await listRedCheckRuns(octokit, target, options.ownAppSlug);
  const inputs: UntrustedInput[] = [];
  const keep = (source: string, text: string): void => {
    const cleaned = options.redact(cleanGitHubText(text).text).trim();
    if (cleaned !== "") inputs.push({ source, text: cleaned });
  };
  for (const run of runs.slice(0, CHECK_LIMITS.checks)) {
    const output = run.output;
    const parts = [
      `check "${run.name}" concluded ${run.conclusion ?? "?"}`,
      output?.title ? `title: ${output.title}` : "",
      output?.summary ? `summary:\n${output.summary}` : "",
      output?.text ? `details:\n${output.text}` : "",
    ].filter((part) => part !== "");
    keep(`github:check-run ${run.id} output`, cap(parts.join("\n\n"), CHECK_LIMITS.outputChars));
    if ((output?.annotations_count ?? 1) > 0) {
      const annotations = await readAnnotations(octokit, target, run.id);
      if (annotations !== "") keep(`github:check-run ${run.id} annotations`, annotations);
    }
    if (run.app?.slug === "github-actions") {
      const log = await readJobLogTail(octokit, target, run.id);
      keep(`github:actions-job ${run.id} log tail`, log);
    }
  }
  if (runs.length > CHECK_LIMITS.checks)
    inputs.push({
      source: "agentforge:left-out",
      text: `${runs.length - CHECK_LIMITS.checks} more failing checks were not read: ${runs
        .slice(CHECK_LIMITS.checks)
        .map((run) => run.name)
        .join(", ")}.`,
    });
  return { checks: runs.map(toFailingCheck), untrustedInputs: inputs };
}

async function readAnnotations(octokit: GitHubRequester, target: CheckTarget, id: number): Promise<string> {
  const response = await octokit.request("GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", {
    owner: target.owner,
    repo: target.repo,
    check_run_id: id,
    per_page: CHECK_LIMITS.annotations,
  });
  const parsed = annotationsSchema.safeParse(response.data);
  if (!parsed.success) throw new Error(`unexpected annotations response: ${parsed.error.message}`);
  return parsed.data
    .map((annotation) => {
      const lines =
        annotation.start_line === null || annotation.start_line === undefined
          ? ""
          : annotation.end_line !== null &&
              annotation.end_line !== undefined &&
              annotation.end_line !== annotation.start_line
            ? `:${annotation.start_line}-${annotation.end_line}`
            : `:${annotation.start_line}`;
      const title = annotation.title ? `${annotation.title}: ` : "";
      return cap(
        `${annotation.path}${lines} [${annotation.annotation_level ?? "notice"}] ${title}${annotation.message ?? ""}`,
        1_000,
      );
    })
    .join("\n");
}

/** GitHub Actions prefixes every log line with its time; the model needs the words. */
const LOG_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/**
 * `GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs` answers 302 with a short-lived download
 * address; fetch follows it (dropping the token on a cross-origin hop). Only the tail is kept: the
 * body is read as a stream, and no more than eight times `logBytes` of it (and the chunk being
 * read) is held at any time.
 */
export async function readJobLogTail(
  octokit: GitHubRequester,
  target: CheckTarget,
  jobId: number,
): Promise<string> {
  let body: unknown;
  try {
    const response = await octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
      owner: target.owner,
      repo: target.repo,
      job_id: jobId,
      request: { parseSuccessResponseBody: false },
    });
    body = response.data;
  } catch (error) {
    const status = statusOf(error);
    // 404/410: logs expired or deleted; 403: the installation may not read Actions.
    if (status === 404 || status === 410 || status === 403)
      return `(the job log could not be read: GitHub answered ${status})`;
    throw error;
  }
  const text = await readTail(body, CHECK_LIMITS.logBytes * 4);
  const lines = stripTerminalControls(text)
    .split(/\r?\n/)
    .map((line) => line.replace(LOG_TIMESTAMP, ""));
  const tail = lines.slice(-CHECK_LIMITS.logLines).join("\n");
  return tail.length > CHECK_LIMITS.logBytes ? `…${tail.slice(-CHECK_LIMITS.logBytes)}` : tail;
}

async function readTail(body: unknown, maxBytes: number): Promise<string> {
  if (typeof body === "string") return body.slice(-maxBytes);
  if (body === null || body === undefined) return "";
  if (typeof body === "object" && Symbol.asyncIterator in body) {
    let held: Buffer = Buffer.alloc(0);
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      held = Buffer.concat([held, Buffer.from(chunk)]);
      if (held.length > maxBytes * 2) held = held.subarray(held.length - maxBytes);
    }
    return held.subarray(Math.max(0, held.length - maxBytes)).toString("utf8");
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString("utf8").slice(-maxBytes);
  throw new Error("unexpected job log response: not text or a stream");
}
