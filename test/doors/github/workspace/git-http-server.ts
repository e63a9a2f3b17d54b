import { execFileSync, spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** One request the stand-in answered; tests count them to tell a clone from a fetch. */
export interface GitHttpRequest {
  readonly method: string;
  readonly path: string;
  /** `git-upload-pack` (clone, fetch) or `git-receive-pack` (push). */
  readonly service: string | null;
  readonly status: number;
  readonly authorization: string | undefined;
  readonly responseBytes: number;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:PORT/` ; a repository `name.git` under projectRoot is at `${url}name.git`. */
  readonly url: string;
  readonly requests: GitHttpRequest[];
  /** Answer pushes with 403 from now on, as GitHub does for a token without write access. */
  setRefusePush(refuse: boolean): void;
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** Folder holding bare repositories. */
  readonly projectRoot: string;
  /** Requests without `Authorization: basic base64(x-access-token:TOKEN)` get 401. */
  readonly token: string;
}

const EXEC_PATH = execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim();
const HTTP_BACKEND = path.join(EXEC_PATH, "git-http-backend");

function serviceOf(request: IncomingMessage, url: URL): string | null {
  const fromQuery = url.searchParams.get("service");
  if (fromQuery !== null) return fromQuery;
  const last = url.pathname.split("/").pop() ?? "";
  return last.startsWith("git-") ? last : null;
}

function isAuthorized(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const [scheme, encoded] = header.split(" ");
  if (scheme?.toLowerCase() !== "basic" || encoded === undefined) return false;
  return Buffer.from(encoded, "base64").toString("utf8") === `x-access-token:${token}`;
}

/** Splits a CGI response into status, headers and body. */
function parseCgiOutput(output: Buffer): { status: number; headers: [string, string][]; body: Buffer } {
  let separator = output.indexOf("\r\n\r\n");
  let separatorLength = 4;
  if (separator === -1) {
    separator = output.indexOf("\n\n");
    separatorLength = 2;
  }
  const head = output.subarray(0, separator).toString("latin1");
  const body = output.subarray(separator + separatorLength);
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
    else headers.push([name, value]);
  }
  return { status, headers, body };
}

/**
 * A git remote over smart HTTP, served by `git http-backend` as CGI, that insists on the
 * installation token the way GitHub does. Tests use it to prove the token reaches git for fetch
 * and push and is stored nowhere.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: GitHttpRequest[] = [];
  let refusePush = false;

  function record(request: IncomingMessage, url: URL, status: number, responseBytes: number): void {
    requests.push({
      method: request.method ?? "GET",
      path: url.pathname,
      service: serviceOf(request, url),
      status,
      authorization: request.headers.authorization,
      responseBytes,
    });
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (!isAuthorized(request.headers.authorization, options.token)) {
      record(request, url, 401, 0);
      response.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end("token required\n");
      return;
    }
    if (refusePush && serviceOf(request, url) === "git-receive-pack") {
      record(request, url, 403, 0);
      response.writeHead(403, { "Content-Type": "text/plain" }).end("Permission to push denied\n");
      return;
    }
    const child = spawn(HTTP_BACKEND, [], {
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: options.projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? "GET",
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: request.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: String(request.headers["git-protocol"] ?? ""),
        // http-backend enables receive-pack only for an authenticated user.
        REMOTE_USER: "x-access-token",
        REMOTE_ADDR: "127.0.0.1",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    request.pipe(child.stdin);
    child.on("close", () => {
      const { status, headers, body } = parseCgiOutput(Buffer.concat(chunks));
      record(request, url, status, body.length);
      response.writeHead(status, Object.fromEntries(headers));
      response.end(body);
    });
  }

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    setRefusePush(refuse: boolean): void {
      refusePush = refuse;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
