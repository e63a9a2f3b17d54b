import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeGitHubApi {
  /** Base URL to hand Probot as `baseUrl`. */
  readonly url: string;
  /** Requests answered, by route name; `unexpected` counts anything else (answered 404). */
  readonly counts: Record<"token" | "permission" | "config" | "reaction" | "unexpected", number>;
  readonly unexpected: string[];
  close(): Promise<void>;
}

export interface FakeGitHubApiOptions {
  readonly permission: "read" | "write" | "admin";
  /** The repository's `.github/agentforge.yml`, served from its default branch. */
  readonly configYaml: string;
  /** Every answer is held this long, as GitHub's API often takes (default 0: at once). */
  readonly latencyMs?: number;
  /** Permission and config requests answered with this status and `retry-after`, as a rate limit. */
  readonly refuse?: { readonly status: 403 | 429; readonly retryAfterSeconds: number };
}

const ROUTES = [
  { name: "token", method: "POST", pattern: /^\/app\/installations\/\d+\/access_tokens$/ },
  {
    name: "permission",
    method: "GET",
    pattern: /^\/repos\/[^/]+\/[^/]+\/collaborators\/([^/]+)\/permission$/,
  },
  {
    name: "config",
    method: "GET",
    pattern: /^\/repos\/[^/]+\/[^/]+\/contents\/\.github(?:%2F|\/)agentforge\.yml$/,
  },
  { name: "reaction", method: "POST", pattern: /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/\d+\/reactions$/ },
] as const;

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
}

/**
 * The few GitHub REST endpoints intake calls, on loopback: the installation token, the
 * commenter's permission, the repository config and the 👀 reaction. Answered at once unless a
 * latency is asked for, so by default what the bench measures is the intake's own cost.
 */
export async function startFakeGitHubApi(options: FakeGitHubApiOptions): Promise<FakeGitHubApi> {
  const counts = { token: 0, permission: 0, config: 0, reaction: 0, unexpected: 0 };
  const unexpected: string[] = [];
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const pathname = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    const route = ROUTES.find((entry) => entry.method === request.method && entry.pattern.test(pathname));
    request.resume();
    if (route === undefined) {
      counts.unexpected += 1;
      unexpected.push(`${request.method ?? "?"} ${pathname}`);
      json(response, 404, { message: "Not Found" });
      return;
    }
    counts[route.name] += 1;
    const refuse = options.refuse;
    if (refuse !== undefined && (route.name === "permission" || route.name === "config")) {
      response.writeHead(refuse.status, {
        "content-type": "application/json; charset=utf-8",
        "retry-after": String(refuse.retryAfterSeconds),
      });
      response.end(JSON.stringify({ message: "You have exceeded a secondary rate limit." }));
      return;
    }
    switch (route.name) {
      case "token":
        json(response, 201, {
          token: "ghs_benchInstallationToken0123456789abcdef",
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          permissions: { issues: "write", contents: "write", pull_requests: "write" },
          repository_selection: "all",
        });
        return;
      case "permission": {
        const login = decodeURIComponent(route.pattern.exec(pathname)?.[1] ?? "");
        json(response, 200, {
          permission: options.permission,
          role_name: options.permission,
          user: { login },
        });
        return;
      }
      case "config":
        // GitHub answers a raw-media request with the file's text.
        response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(options.configYaml);
        return;
      case "reaction":
        json(response, 201, { id: counts.reaction, content: "eyes" });
        return;
    }
  };
  const latencyMs = options.latencyMs ?? 0;
  const server = createServer({ keepAlive: true }, (request, response) => {
    if (latencyMs === 0) handle(request, response);
    else setTimeout(() => handle(request, response), latencyMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    unexpected,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
