import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { startGitHttpServer, type GitHttpServer } from "../../doors/github/workspace/git-http-server.js";
import { createBareRepository, resolveRef } from "./bare-repository.js";
import { handleLogDownload, LOG_DOWNLOAD_PREFIX } from "./check-routes.js";
import { createStandInRoutes, HttpError } from "./stand-in-routes.js";
import type { RecordedRequest, StandInCheckRun, StandInRepository, StandInUser } from "./stand-in-state.js";

export interface StandInOptions {
  readonly repositories: readonly {
    readonly owner: string;
    readonly name: string;
    readonly files: Readonly<Record<string, string>>;
    readonly defaultBranch?: string;
  }[];
  /** Collaborator permission per login (`admin`, `write`, `read`, ...); others get `read`. */
  readonly permissions?: Readonly<Record<string, string>>;
  readonly appSlug?: string;
}

export interface GitHubStandIn {
  /** REST base for Octokit (`baseUrl`), e.g. `http://127.0.0.1:PORT/api/v3`. */
  readonly apiUrl: string;
  /** `127.0.0.1:PORT`, for `GHE_HOST` with `GHE_PROTOCOL=http` (Probot then uses `/api/v3`). */
  readonly host: string;
  /** The one installation token it issues; git and REST calls must carry it. */
  readonly token: string;
  readonly appSlug: string;
  readonly requests: RecordedRequest[];
  repository(owner: string, name: string): StandInRepository;
  /** Opens an issue as `author` and returns its number. */
  addIssue(owner: string, name: string, issue: { title: string; body: string; author: string }): number;
  /** Adds a comment as `author` (what a webhook payload then points at); returns its id. */
  addComment(owner: string, name: string, issueNumber: number, body: string, author: string): number;
  /**
   * Adds a check run of CI on a commit (GET commits/{ref}/check-runs lists it); returns its id,
   * which is also the job id of a `github-actions` run (as on GitHub).
   */
  addCheckRun(
    owner: string,
    name: string,
    run: Omit<StandInCheckRun, "id" | "status"> & { status?: StandInCheckRun["status"] },
  ): number;
  /** The sha a branch points at in the bare repository, or null. */
  branchSha(owner: string, name: string, branch: string): string | null;
  setPermission(login: string, permission: string): void;
  /** Makes every git push fail with 403 (a protected branch). */
  setRefusePush(refuse: boolean): void;
  close(): Promise<void>;
}

let nextUserId = 1000;
const users = new Map<string, StandInUser>();

export function userOf(login: string): StandInUser {
  const existing = users.get(login.toLowerCase());
  if (existing !== undefined) return existing;
  const user: StandInUser = { login, id: (nextUserId += 1), type: login.endsWith("[bot]") ? "Bot" : "User" };
  users.set(login.toLowerCase(), user);
  return user;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `Problems parsing JSON: ${(error as Error).message}`);
  }
}

/**
 * A local stand-in for the parts of GitHub's REST API the App and the Action use, with the
 * repositories served over git's smart HTTP by `git http-backend`. See README.md next to it.
 */
export async function startGitHubStandIn(options: StandInOptions): Promise<GitHubStandIn> {
  const root = mkdtempSync(path.join(tmpdir(), "github-stand-in-"));
  const token = `ghs_${randomBytes(18).toString("hex")}`;
  const downloadSecret = randomBytes(16).toString("hex");
  const appSlug = options.appSlug ?? "agentforge";
  const git: GitHttpServer = await startGitHttpServer({ projectRoot: root, token });
  const repositories = new Map<string, StandInRepository>();
  for (const spec of options.repositories) {
    const defaultBranch = spec.defaultBranch ?? "main";
    const bareDir = path.join(root, spec.owner, `${spec.name}.git`);
    createBareRepository(bareDir, spec.files, defaultBranch);
    repositories.set(`${spec.owner}/${spec.name}`.toLowerCase(), {
      owner: spec.owner,
      name: spec.name,
      defaultBranch,
      bareDir,
      issues: new Map(),
      comments: [],
      pulls: new Map(),
      reviews: [],
      threadReplies: [],
      checkRuns: [],
      ciCheckRuns: [],
      reactions: [],
      labels: new Map(),
      nextNumber: 1,
    });
  }
  const permissions = new Map(
    Object.entries(options.permissions ?? {}).map(([login, level]) => [login.toLowerCase(), level]),
  );
  const requests: RecordedRequest[] = [];
  let nextCommentId = 5000;
  const routes = createStandInRoutes({
    repositories,
    token,
    appSlug,
    userOf,
    permissionOf: (login) => permissions.get(login.toLowerCase()) ?? "read",
    cloneUrlOf: (repository) => `${git.url}${repository.owner}/${repository.name}.git`,
    htmlBase: () => apiBase.replace(/\/api\/v3$/, ""),
    nextCommentId: () => (nextCommentId += 1),
    apiBase: () => apiBase,
    downloadSecret,
  });

  let apiBase = "";
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const route = url.pathname.replace(/^\/api\/v3/, "");
    const query = Object.fromEntries(url.searchParams.entries());
    const method = request.method ?? "GET";
    const send = (
      status: number,
      data: unknown,
      contentType = "application/json; charset=utf-8",
      headers: Readonly<Record<string, string>> = {},
    ): void => {
      requests.push({ method, path: route, query, body: recordedBody, status, at: Date.now() });
      const payload =
        typeof data === "string" && !contentType.startsWith("application/json")
          ? data
          : JSON.stringify(data ?? null);
      response.writeHead(status, { "content-type": contentType, ...headers });
      response.end(status === 204 ? undefined : payload);
    };
    let recordedBody: unknown;
    readBody(request)
      .then((body) => {
        recordedBody = body;
        // A signed download needs no token, like the storage GitHub's log redirects point at.
        if (route.startsWith(LOG_DOWNLOAD_PREFIX) && method === "GET")
          return handleLogDownload(route, query, repositories, downloadSecret);
        return routes.handle({ method, route, query, body, headers: request.headers });
      })
      .then((result) => send(result.status, result.data, result.contentType, result.headers))
      .catch((error: unknown) => {
        if (error instanceof HttpError)
          send(error.status, { message: error.message, documentation_url: "https://docs.github.com/rest" });
        else send(500, { message: error instanceof Error ? error.message : String(error) });
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  apiBase = `http://127.0.0.1:${port}/api/v3`;

  function repository(owner: string, name: string): StandInRepository {
    const found = repositories.get(`${owner}/${name}`.toLowerCase());
    if (found === undefined) throw new Error(`no repository ${owner}/${name} in the stand-in`);
    return found;
  }

  return {
    apiUrl: apiBase,
    host: `127.0.0.1:${port}`,
    token,
    appSlug,
    requests,
    repository,
    addIssue(owner, name, issue) {
      const target = repository(owner, name);
      const number = target.nextNumber++;
      target.issues.set(number, {
        number,
        title: issue.title,
        body: issue.body,
        user: userOf(issue.author),
        isPullRequest: false,
      });
      return number;
    },
    addComment(owner, name, issueNumber, body, author) {
      const id = (nextCommentId += 1);
      repository(owner, name).comments.push({ id, issueNumber, body, user: userOf(author), history: [body] });
      return id;
    },
    addCheckRun(owner, name, run) {
      const id = (nextCommentId += 1);
      repository(owner, name).ciCheckRuns.push({ ...run, id, status: run.status ?? "completed" });
      return id;
    },
    branchSha: (owner, name, branch) => resolveRef(repository(owner, name).bareDir, `refs/heads/${branch}`),
    setPermission: (login, permission) => void permissions.set(login.toLowerCase(), permission),
    setRefusePush: (refuse) => git.setRefusePush(refuse),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await git.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
