import { createHmac } from "node:crypto";
import { resolveRef } from "./bare-repository.js";
import { HttpError, type RouteRequest, type RouteResult } from "./stand-in-routes.js";
import type { StandInCheckRun, StandInRepository } from "./stand-in-state.js";

/** Where a job log is downloaded from after the redirect; signed, like GitHub's short-lived URLs. */
export const LOG_DOWNLOAD_PREFIX = "/_downloads/job-logs/";

function sign(secret: string, id: number): string {
  return createHmac("sha256", secret).update(String(id)).digest("hex").slice(0, 32);
}

function checkRunJson(run: StandInCheckRun, htmlBase: string, fullName: string): Record<string, unknown> {
  return {
    id: run.id,
    name: run.name,
    head_sha: run.headSha,
    status: run.status,
    conclusion: run.conclusion,
    details_url: `${htmlBase}/${fullName}/actions/runs/1/job/${run.id}`,
    output: {
      title: run.output.title ?? null,
      summary: run.output.summary ?? null,
      text: run.output.text ?? null,
      annotations_count: run.annotations.length,
    },
    app: { slug: run.appSlug, name: run.appSlug },
  };
}

/**
 * Check runs and Actions job logs, as GitHub's REST reference describes them:
 * - "List check runs for a Git reference": `GET /repos/{o}/{r}/commits/{ref}/check-runs` answers
 *   `{ total_count, check_runs }`, paged by `per_page` and `page`; `ref` is a SHA or a branch name;
 *   `filter=latest` (the default) keeps the newest run of each name, `filter=all` every one.
 * - "List check run annotations": `GET /repos/{o}/{r}/check-runs/{id}/annotations`, an array of
 *   `{ path, start_line, end_line, annotation_level, title, message, raw_details }`; 404 for an
 *   unknown check run.
 * - "Download job logs for a workflow run": `GET /repos/{o}/{r}/actions/jobs/{job_id}/logs` answers
 *   302 with a `Location` to a plain-text download that needs no token; 404 for an unknown job,
 *   410 when the logs are gone. Only check runs of the `github-actions` app are jobs.
 */
export function handleCheckRoute(
  request: RouteRequest,
  repository: StandInRepository,
  rest: string,
  options: { readonly secret: string; readonly apiBase: string; readonly htmlBase: string },
): RouteResult | null {
  if (request.method !== "GET") return null;
  const fullName = `${repository.owner}/${repository.name}`;
  let match: RegExpExecArray | null;
  if ((match = /^\/commits\/([^/]+)\/check-runs$/.exec(rest))) {
    const ref = decodeURIComponent(match[1]!);
    const sha = /^[0-9a-f]{40}$/.test(ref) ? ref : resolveRef(repository.bareDir, `refs/heads/${ref}`);
    if (sha === null) throw new HttpError(422, `No commit found for SHA: ${ref}`);
    const filter = request.query["filter"] ?? "latest";
    if (filter !== "latest" && filter !== "all") throw new HttpError(422, '"filter" must be latest or all');
    const forCommit = repository.ciCheckRuns.filter((run) => run.headSha === sha);
    // Newest last: under `latest` a later run of the same name replaces the earlier one.
    const runs =
      filter === "all"
        ? forCommit
        : forCommit.filter(
            (run, index) => !forCommit.slice(index + 1).some((later) => later.name === run.name),
          );
    const perPage = Math.min(100, Number(request.query["per_page"] ?? "30"));
    const page = Number(request.query["page"] ?? "1");
    return {
      status: 200,
      data: {
        total_count: runs.length,
        check_runs: runs
          .slice((page - 1) * perPage, page * perPage)
          .map((run) => checkRunJson(run, options.htmlBase, fullName)),
      },
    };
  }
  if ((match = /^\/check-runs\/(\d+)\/annotations$/.exec(rest))) {
    const run = repository.ciCheckRuns.find((candidate) => candidate.id === Number(match![1]));
    if (run === undefined) throw new HttpError(404, "Not Found");
    const perPage = Math.min(100, Number(request.query["per_page"] ?? "30"));
    return {
      status: 200,
      data: run.annotations.slice(0, perPage).map((annotation) => ({
        path: annotation.path,
        start_line: annotation.startLine,
        end_line: annotation.endLine ?? annotation.startLine,
        annotation_level: annotation.level ?? "failure",
        title: annotation.title ?? null,
        message: annotation.message,
        raw_details: null,
      })),
    };
  }
  if ((match = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest))) {
    const id = Number(match[1]);
    const run = repository.ciCheckRuns.find((candidate) => candidate.id === id);
    if (run === undefined || run.appSlug !== "github-actions") throw new HttpError(404, "Not Found");
    if (run.log === undefined) throw new HttpError(410, "Gone");
    const location = `${options.apiBase.replace(/\/api\/v3$/, "")}${LOG_DOWNLOAD_PREFIX}${repository.owner}/${repository.name}/${id}?sig=${sign(options.secret, id)}`;
    return { status: 302, data: "", contentType: "text/plain", headers: { location } };
  }
  return null;
}

/** The download the redirect points at: plain text, no token, a valid signature. */
export function handleLogDownload(
  route: string,
  query: Readonly<Record<string, string>>,
  repositories: Map<string, StandInRepository>,
  secret: string,
): RouteResult {
  const match = /^\/_downloads\/job-logs\/([^/]+)\/([^/]+)\/(\d+)$/.exec(route);
  if (match === null) throw new HttpError(404, "Not Found");
  const id = Number(match[3]);
  if (query["sig"] !== sign(secret, id)) throw new HttpError(403, "Signature does not match");
  const repository = repositories.get(`${match[1]}/${match[2]}`.toLowerCase());
  const run = repository?.ciCheckRuns.find((candidate) => candidate.id === id);
  if (run?.log === undefined) throw new HttpError(404, "Not Found");
  return { status: 200, data: run.log, contentType: "text/plain; charset=utf-8" };
}
