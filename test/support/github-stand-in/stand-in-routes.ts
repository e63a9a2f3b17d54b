import type { IncomingHttpHeaders } from "node:http";
import { commentableLines, git, readFileAt, resolveRef } from "./bare-repository.js";
import { handleCheckRoute } from "./check-routes.js";
import { handleLabelRoute, labelsJson } from "./label-routes.js";
import { handleGraphqlRoute } from "./graphql-review-thread-routes.js";
import type { StandInPull, StandInRepository, StandInUser } from "./stand-in-state.js";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RouteRequest {
  readonly method: string;
  readonly route: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

export interface RouteResult {
  readonly status: number;
  readonly data: unknown;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteDependencies {
  readonly repositories: Map<string, StandInRepository>;
  readonly token: string;
  readonly appSlug: string;
  readonly userOf: (login: string) => StandInUser;
  readonly permissionOf: (login: string) => string;
  readonly cloneUrlOf: (repository: StandInRepository) => string;
  readonly htmlBase: () => string;
  readonly nextCommentId: () => number;
  readonly apiBase: () => string;
  /** Signs the job-log download addresses the logs endpoint redirects to. */
  readonly downloadSecret: string;
}

type Body = Record<string, unknown>;
const REACTIONS = new Set(["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]);
const SHA = /^[0-9a-f]{40}$/;

function invalid(message: string): never {
  throw new HttpError(422, message);
}

function objectBody(body: unknown): Body {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    invalid("Invalid request: a JSON object is required");
  return body as Body;
}

function requireString(body: Body, key: string, options: { allowEmpty?: boolean } = {}): string {
  const value = body[key];
  if (typeof value !== "string") invalid(`Invalid request: "${key}" is required and must be a string`);
  if (!options.allowEmpty && value.length === 0) invalid(`Invalid request: "${key}" must not be empty`);
  return value;
}

function userJson(user: StandInUser): Body {
  return { login: user.login, id: user.id, type: user.type };
}

/** Every REST route the App and the Action use, checked the way GitHub checks them. */
export function createStandInRoutes(deps: RouteDependencies) {
  const appUser = (): StandInUser => deps.userOf(`${deps.appSlug}[bot]`);

  function authorize(request: RouteRequest): void {
    const header = request.headers.authorization ?? "";
    const isAppJwt = /^bearer [^.]+\.[^.]+\.[^.]+$/i.test(header);
    const needsJwt =
      request.route === "/app" || /^\/app\/installations\/\d+\/access_tokens$/.test(request.route);
    if (needsJwt ? !isAppJwt : header.replace(/^(token|bearer) /i, "") !== deps.token)
      throw new HttpError(401, "Bad credentials");
  }

  function repositoryOf(owner: string, name: string): StandInRepository {
    const found = deps.repositories.get(`${owner}/${name}`.toLowerCase());
    if (found === undefined) throw new HttpError(404, "Not Found");
    return found;
  }

  function pullJson(repository: StandInRepository, pull: StandInPull): Body {
    const headSha = resolveRef(repository.bareDir, `refs/heads/${pull.head}`);
    // GitHub keeps `refs/pull/N/head` at the head; fetching it is how a fork's head is read.
    if (headSha !== null) git(repository.bareDir, ["update-ref", `refs/pull/${pull.number}/head`, headSha]);
    const baseSha = resolveRef(repository.bareDir, `refs/heads/${pull.base}`);
    const fullName = `${repository.owner}/${repository.name}`;
    return {
      number: pull.number,
      state: pull.state,
      title: pull.title,
      body: pull.body,
      draft: pull.draft,
      labels: labelsJson(repository, pull.number),
      user: userJson(pull.user),
      html_url: `${deps.htmlBase()}/${fullName}/pull/${pull.number}`,
      head: {
        ref: pull.head,
        sha: headSha,
        label: `${repository.owner}:${pull.head}`,
        repo: { full_name: fullName },
      },
      base: {
        ref: pull.base,
        sha: baseSha,
        label: `${repository.owner}:${pull.base}`,
        repo: { full_name: fullName },
      },
    };
  }

  function issueOf(repository: StandInRepository, number: number) {
    const issue = repository.issues.get(number);
    if (issue === undefined) throw new HttpError(404, "Not Found");
    return issue;
  }

  function commentJson(repository: StandInRepository, comment: StandInRepository["comments"][number]): Body {
    return {
      id: comment.id,
      body: comment.body,
      user: userJson(comment.user),
      html_url: `${deps.htmlBase()}/${repository.owner}/${repository.name}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    };
  }

  function createReview(repository: StandInRepository, pullNumber: number, raw: unknown): RouteResult {
    const pull = repository.pulls.get(pullNumber);
    if (pull === undefined) throw new HttpError(404, "Not Found");
    const body = objectBody(raw);
    const event = body["event"];
    if (
      event !== undefined &&
      (typeof event !== "string" || !["COMMENT", "APPROVE", "REQUEST_CHANGES"].includes(event))
    )
      invalid(`Invalid event ${JSON.stringify(event)}`);
    const commitId = body["commit_id"];
    if (
      commitId !== undefined &&
      (typeof commitId !== "string" || resolveRef(repository.bareDir, commitId) === null)
    )
      invalid("Invalid request: commit_id is not part of the pull request");
    const comments = body["comments"] ?? [];
    if (!Array.isArray(comments)) invalid('Invalid request: "comments" must be an array');
    const lines = commentableLines(repository.bareDir, `refs/heads/${pull.base}`, `refs/heads/${pull.head}`);
    const accepted = comments.map((entry: unknown) => {
      const comment = objectBody(entry);
      const filePath = requireString(comment, "path");
      const text = requireString(comment, "body");
      const line = comment["line"];
      if (typeof line !== "number" || !Number.isInteger(line) || line < 1)
        invalid('Invalid request: "line" must be a positive integer');
      const side = comment["side"] ?? "RIGHT";
      if (side !== "RIGHT" && side !== "LEFT") invalid('Invalid request: "side" must be LEFT or RIGHT');
      const available = lines.get(filePath)?.[side];
      const startLine = comment["start_line"];
      const range =
        typeof startLine === "number"
          ? Array.from({ length: line - startLine + 1 }, (_, index) => startLine + index)
          : [line];
      if (available === undefined || range.length === 0 || range.some((value) => !available.has(value)))
        invalid("Unprocessable Entity: pull_request_review_thread.line must be part of the diff");
      return { id: deps.nextCommentId(), path: filePath, line, side, body: text };
    });
    const review = {
      id: deps.nextCommentId(),
      pullNumber,
      body: typeof body["body"] === "string" ? body["body"] : "",
      commitId: typeof commitId === "string" ? commitId : null,
      author: appUser().login,
      comments: accepted,
    };
    repository.reviews.push(review);
    return {
      status: 200,
      data: {
        id: review.id,
        body: review.body,
        html_url: `${deps.htmlBase()}/${repository.owner}/${repository.name}/pull/${pullNumber}#pullrequestreview-${review.id}`,
        user: userJson(appUser()),
      },
    };
  }

  function handleRepositoryRoute(
    request: RouteRequest,
    repository: StandInRepository,
    rest: string,
  ): RouteResult {
    const { method } = request;
    const fullName = `${repository.owner}/${repository.name}`;
    let match: RegExpExecArray | null;
    const labelled = handleLabelRoute(request, repository, rest);
    if (labelled !== null) return labelled;
    const checked = handleCheckRoute(request, repository, rest, {
      secret: deps.downloadSecret,
      apiBase: deps.apiBase(),
      htmlBase: deps.htmlBase(),
    });
    if (checked !== null) return checked;
    if (rest === "" && method === "GET")
      return {
        status: 200,
        data: {
          full_name: fullName,
          name: repository.name,
          owner: { login: repository.owner },
          default_branch: repository.defaultBranch,
          clone_url: deps.cloneUrlOf(repository),
          private: false,
        },
      };
    if ((match = /^\/issues\/(\d+)$/.exec(rest)) && method === "GET") {
      const issue = issueOf(repository, Number(match[1]));
      return {
        status: 200,
        data: {
          number: issue.number,
          title: issue.title,
          body: issue.body,
          user: userJson(issue.user),
          state: "open",
          labels: labelsJson(repository, issue.number),
          ...(issue.isPullRequest ? { pull_request: { url: "" } } : {}),
        },
      };
    }
    if ((match = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const number = Number(match[1]);
      issueOf(repository, number);
      if (method === "GET") {
        const perPage = Number(request.query["per_page"] ?? "30");
        const page = Number(request.query["page"] ?? "1");
        const all = repository.comments.filter((comment) => comment.issueNumber === number);
        return {
          status: 200,
          data: all
            .slice((page - 1) * perPage, page * perPage)
            .map((comment) => commentJson(repository, comment)),
        };
      }
      if (method === "POST") {
        const text = requireString(objectBody(request.body), "body");
        const comment = {
          id: deps.nextCommentId(),
          issueNumber: number,
          body: text,
          user: appUser(),
          history: [text],
        };
        repository.comments.push(comment);
        return { status: 201, data: commentJson(repository, comment) };
      }
    }
    if ((match = /^\/issues\/comments\/(\d+)$/.exec(rest)) && method === "PATCH") {
      const comment = repository.comments.find((entry) => entry.id === Number(match![1]));
      if (comment === undefined) throw new HttpError(404, "Not Found");
      comment.body = requireString(objectBody(request.body), "body");
      comment.history.push(comment.body);
      return { status: 200, data: commentJson(repository, comment) };
    }
    if (
      (match = /^\/(issues\/comments|issues|pulls\/comments)\/(\d+)\/reactions$/.exec(rest)) &&
      method === "POST"
    ) {
      const content = requireString(objectBody(request.body), "content");
      if (!REACTIONS.has(content)) invalid(`Invalid reaction ${content}`);
      repository.reactions.push({ target: `${match[1]}/${match[2]}`, content });
      return { status: 201, data: { id: deps.nextCommentId(), content } };
    }
    if ((match = /^\/collaborators\/([^/]+)\/permission$/.exec(rest)) && method === "GET") {
      const login = decodeURIComponent(match[1]!);
      const permission = deps.permissionOf(login);
      return {
        status: 200,
        data: {
          permission,
          role_name: permission,
          user: {
            ...userJson(deps.userOf(login)),
            permissions: {
              admin: permission === "admin",
              push: ["admin", "maintain", "write"].includes(permission),
              pull: true,
            },
          },
        },
      };
    }
    if ((match = /^\/contents\/(.+)$/.exec(rest)) && method === "GET") {
      const filePath = decodeURIComponent(match[1]!);
      const ref = request.query["ref"] ?? repository.defaultBranch;
      const content = readFileAt(repository.bareDir, ref, filePath);
      if (content === null) throw new HttpError(404, "Not Found");
      if ((request.headers.accept ?? "").includes("raw"))
        return { status: 200, data: content.toString("utf8"), contentType: "text/plain; charset=utf-8" };
      return {
        status: 200,
        data: {
          type: "file",
          encoding: "base64",
          path: filePath,
          name: filePath.split("/").pop(),
          content: content.toString("base64"),
        },
      };
    }
    if (rest === "/pulls" && method === "GET") {
      const head = request.query["head"];
      const state = request.query["state"] ?? "open";
      const pulls = [...repository.pulls.values()].filter(
        (pull) =>
          (state === "all" || pull.state === state) &&
          (head === undefined || `${repository.owner}:${pull.head}` === head || pull.head === head),
      );
      return { status: 200, data: pulls.map((pull) => pullJson(repository, pull)) };
    }
    if (rest === "/pulls" && method === "POST") {
      const body = objectBody(request.body);
      const title = requireString(body, "title");
      const head = requireString(body, "head");
      const base = requireString(body, "base");
      if (resolveRef(repository.bareDir, `refs/heads/${head}`) === null)
        invalid(`Validation Failed: head ${head} does not exist`);
      if (resolveRef(repository.bareDir, `refs/heads/${base}`) === null)
        invalid(`Validation Failed: base ${base} does not exist`);
      if (
        [...repository.pulls.values()].some(
          (pull) => pull.state === "open" && pull.head === head && pull.base === base,
        )
      )
        invalid(`Validation Failed: A pull request already exists for ${repository.owner}:${head}.`);
      if (body["draft"] !== undefined && typeof body["draft"] !== "boolean")
        invalid('"draft" must be a boolean');
      const number = repository.nextNumber++;
      const pull: StandInPull = {
        number,
        title,
        body: typeof body["body"] === "string" ? body["body"] : "",
        head,
        base,
        draft: body["draft"] === true,
        state: "open",
        user: appUser(),
      };
      repository.pulls.set(number, pull);
      repository.issues.set(number, { number, title, body: pull.body, user: pull.user, isPullRequest: true });
      return { status: 201, data: pullJson(repository, pull) };
    }
    if ((match = /^\/pulls\/(\d+)$/.exec(rest))) {
      const pull = repository.pulls.get(Number(match[1]));
      if (pull === undefined) throw new HttpError(404, "Not Found");
      if (method === "GET") return { status: 200, data: pullJson(repository, pull) };
      if (method === "PATCH") {
        const body = objectBody(request.body);
        if (body["title"] !== undefined) pull.title = requireString(body, "title");
        if (body["body"] !== undefined) pull.body = requireString(body, "body", { allowEmpty: true });
        return { status: 200, data: pullJson(repository, pull) };
      }
    }
    if ((match = /^\/pulls\/(\d+)\/reviews$/.exec(rest))) {
      const number = Number(match[1]);
      if (method === "POST") return createReview(repository, number, request.body);
      if (method === "GET")
        return {
          status: 200,
          data: repository.reviews
            .filter((review) => review.pullNumber === number)
            .map((review) => ({
              id: review.id,
              body: review.body,
              commit_id: review.commitId,
              user: userJson(deps.userOf(review.author)),
            })),
        };
    }
    if ((match = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(rest)) && method === "POST") {
      const pullNumber = Number(match[1]);
      const inReplyTo = Number(match[2]);
      const opened = repository.reviews.some(
        (review) =>
          review.pullNumber === pullNumber && review.comments.some((comment) => comment.id === inReplyTo),
      );
      if (!opened) throw new HttpError(404, "Not Found");
      const text = requireString(objectBody(request.body), "body");
      const reply = { id: deps.nextCommentId(), pullNumber, inReplyTo, body: text, history: [text] };
      repository.threadReplies.push(reply);
      return {
        status: 201,
        data: { id: reply.id, body: reply.body, in_reply_to_id: inReplyTo, user: userJson(appUser()) },
      };
    }
    if ((match = /^\/pulls\/comments\/(\d+)$/.exec(rest)) && method === "PATCH") {
      const reply = repository.threadReplies.find((entry) => entry.id === Number(match![1]));
      if (reply === undefined) throw new HttpError(404, "Not Found");
      reply.body = requireString(objectBody(request.body), "body");
      reply.history.push(reply.body);
      return { status: 200, data: { id: reply.id, body: reply.body, in_reply_to_id: reply.inReplyTo } };
    }
    if ((match = /^\/pulls\/(\d+)\/comments$/.exec(rest)) && method === "GET") {
      const number = Number(match[1]);
      return {
        status: 200,
        data: repository.reviews
          .filter((review) => review.pullNumber === number)
          .flatMap((review) =>
            review.comments.map((comment) => ({ ...comment, user: userJson(deps.userOf(review.author)) })),
          ),
      };
    }
    if (rest === "/check-runs" && method === "POST") {
      const body = objectBody(request.body);
      requireString(body, "name");
      const headSha = requireString(body, "head_sha");
      if (!SHA.test(headSha) || resolveRef(repository.bareDir, headSha) === null)
        invalid("Validation Failed: No commit found for SHA");
      if (body["status"] === "completed" && typeof body["conclusion"] !== "string")
        invalid('"conclusion" is required when status is completed');
      repository.checkRuns.push(body);
      const id = deps.nextCommentId();
      const output = (
        typeof body["output"] === "object" && body["output"] !== null ? body["output"] : {}
      ) as {
        title?: string;
        summary?: string;
      };
      repository.ciCheckRuns.push({
        id,
        headSha,
        name: String(body["name"]),
        status: body["status"] === "completed" ? "completed" : "in_progress",
        conclusion: typeof body["conclusion"] === "string" ? body["conclusion"] : null,
        appSlug: deps.appSlug,
        output: {
          ...(typeof output.title === "string" ? { title: output.title } : {}),
          ...(typeof output.summary === "string" ? { summary: output.summary } : {}),
        },
        annotations: [],
      });
      return { status: 201, data: { id, ...body } };
    }
    throw new HttpError(404, "Not Found");
  }

  return {
    async handle(request: RouteRequest): Promise<RouteResult> {
      authorize(request);
      const { method, route } = request;
      let match: RegExpExecArray | null;
      if (route === "/app" && method === "GET")
        return { status: 200, data: { id: 1, slug: deps.appSlug, name: "AgentForge" } };
      if (/^\/app\/installations\/\d+\/access_tokens$/.test(route) && method === "POST")
        return {
          status: 201,
          data: {
            token: deps.token,
            expires_at: new Date(Date.now() + 3_600_000).toISOString(),
            permissions: {},
            repository_selection: "all",
          },
        };
      if (route === "/graphql" || route === "/api/graphql") return handleGraphqlRoute(request, deps);
      if ((match = /^\/users\/([^/]+)$/.exec(route)) && method === "GET")
        return { status: 200, data: userJson(deps.userOf(decodeURIComponent(match[1]!))) };
      if ((match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(route)))
        return handleRepositoryRoute(request, repositoryOf(match[1]!, match[2]!), match[3] ?? "");
      throw new HttpError(404, "Not Found");
    },
  };
}
