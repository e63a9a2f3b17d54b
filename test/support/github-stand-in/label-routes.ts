import { HttpError, type RouteRequest, type RouteResult } from "./stand-in-routes.js";
import type { StandInRepository } from "./stand-in-state.js";

/**
 * The issue labels endpoints, as GitHub's REST reference describes them ("REST API endpoints for
 * labels"): `POST .../issues/{n}/labels` with `{ labels: [names] }` adds them (creating a missing
 * label) and answers 200 with the issue's labels; `DELETE .../issues/{n}/labels/{name}` answers
 * 200 with the rest, or 404 when the issue does not have it. Pull requests are issues here too.
 */
export function handleLabelRoute(
  request: RouteRequest,
  repository: StandInRepository,
  rest: string,
): RouteResult | null {
  let match: RegExpExecArray | null;
  if ((match = /^\/issues\/(\d+)\/labels$/.exec(rest))) {
    const number = issueNumberOf(repository, match[1]!);
    if (request.method === "GET") return { status: 200, data: labelsJson(repository, number) };
    if (request.method !== "POST") return null;
    const body = request.body as { labels?: unknown } | null;
    const names = body?.labels;
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      !names.every((name) => typeof name === "string" && name !== "")
    )
      throw new HttpError(422, 'Invalid request: "labels" must be a non-empty array of strings');
    const current = repository.labels.get(number) ?? [];
    const lower = new Set(current.map((name) => name.toLowerCase()));
    repository.labels.set(number, [...current, ...names.filter((name) => !lower.has(name.toLowerCase()))]);
    return { status: 200, data: labelsJson(repository, number) };
  }
  if ((match = /^\/issues\/(\d+)\/labels\/(.+)$/.exec(rest)) && request.method === "DELETE") {
    const number = issueNumberOf(repository, match[1]!);
    const name = decodeURIComponent(match[2]!).toLowerCase();
    const current = repository.labels.get(number) ?? [];
    if (!current.some((label) => label.toLowerCase() === name))
      throw new HttpError(404, "Label does not exist");
    repository.labels.set(
      number,
      current.filter((label) => label.toLowerCase() !== name),
    );
    return { status: 200, data: labelsJson(repository, number) };
  }
  return null;
}

function issueNumberOf(repository: StandInRepository, text: string): number {
  const number = Number(text);
  if (!repository.issues.has(number) && !repository.pulls.has(number)) throw new HttpError(404, "Not Found");
  return number;
}

/** Labels as the issue and pull request objects carry them. */
export function labelsJson(repository: StandInRepository, number: number): { name: string }[] {
  return (repository.labels.get(number) ?? []).map((name) => ({ name }));
}
