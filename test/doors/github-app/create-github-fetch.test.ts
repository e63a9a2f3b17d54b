import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { createGitHubFetch } from "../../../src/doors/github-app/create-github-fetch.js";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A real HTTP server on a loopback port that records every request it is sent. */
async function startServer(handler: Handler): Promise<{
  readonly url: string;
  readonly seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}> {
  const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function octokitAt(baseUrl: string): InstanceType<typeof ProbotOctokit> {
  return new ProbotOctokit({
    baseUrl,
    auth: { token: "ghs_fetchTestToken0123456789abcdefABCD" },
    request: { fetch: createGitHubFetch() },
    retry: { enabled: false },
    throttle: { enabled: false },
  });
}

const json = (
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void => {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  response.end(JSON.stringify(value));
};

describe("the App's GitHub fetch, under Octokit", () => {
  let hangAsked: () => void = () => undefined;
  const hangReceived = new Promise<void>((resolve) => (hangAsked = resolve));
  let storage: Awaited<ReturnType<typeof startServer>>;
  let api: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    // Another origin, as the storage host a job log's redirect leads to.
    storage = await startServer((request, _body, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(request.url === "/big" ? "x".repeat(1_000_000) : "the log\n");
    });
    api = await startServer((request, body, response) => {
      const url = request.url ?? "";
      if (url === "/repos/o/r/collaborators/u/permission")
        return json(response, 200, { permission: "write" }, { "x-ratelimit-remaining": "4999" });
      if (url === "/repos/o/r/issues/1/reactions")
        return json(response, 201, { content: JSON.parse(body).content });
      if (url === "/repos/o/r/contents/gz") {
        response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        return response.end(gzipSync(JSON.stringify({ name: "gz", size: 3 })));
      }
      if (url === "/repos/o/old") return json(response, 301, {}, { location: `${api.url}/repos/o/new` });
      if (url === "/repos/o/new") return json(response, 200, { full_name: "o/new" });
      if (url.startsWith("/repos/o/r/actions/jobs/"))
        return json(
          response,
          302,
          {},
          { location: `${storage.url}${url.endsWith("/9/logs") ? "/big" : "/log"}` },
        );
      if (url === "/repos/o/r/hang") return hangAsked(); // never answered
      if (url === "/form") return json(response, 302, {}, { location: "/landed" });
      if (url === "/landed") return json(response, 200, { method: request.method, body });
      if (url === "/cut-redirect") {
        response.writeHead(302, { location: "/landed", "content-length": "1000" });
        response.write("partial");
        return setImmediate(() => response.socket?.destroy());
      }
      if (url === "/loop") return json(response, 307, {}, { location: "/loop" });
      if (url === "/cut") {
        response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        response.write('{"partial":');
        return setImmediate(() => response.socket?.destroy());
      }
      if (url === "/repos/o/r/deleted") {
        response.writeHead(204);
        return response.end();
      }
      return json(response, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    });
  });

  afterAll(async () => {
    await Promise.all([api.close(), storage.close()]);
  });

  it("reads JSON, sends a JSON body, and gives the answer's headers", async () => {
    const octokit = octokitAt(api.url);
    const permission = await octokit.request(
      "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
      {
        owner: "o",
        repo: "r",
        username: "u",
      },
    );
    expect(permission.status).toBe(200);
    expect(permission.data).toEqual({ permission: "write" });
    expect(permission.headers["x-ratelimit-remaining"]).toBe("4999");
    expect(permission.url).toBe(`${api.url}/repos/o/r/collaborators/u/permission`);
    const reaction = await octokit.rest.reactions.createForIssue({
      owner: "o",
      repo: "r",
      issue_number: 1,
      content: "eyes",
    });
    expect(reaction.status).toBe(201);
    expect(reaction.data).toEqual({ content: "eyes" });
    const sent = api.seen.find((entry) => entry.url === "/repos/o/r/issues/1/reactions");
    expect(sent?.method).toBe("POST");
    expect(sent?.headers["authorization"]).toBe("token ghs_fetchTestToken0123456789abcdefABCD");
    expect(sent?.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(sent?.body ?? "")).toEqual({ content: "eyes" });
  });

  it("asks for a compressed answer and decodes it", async () => {
    const answer = await octokitAt(api.url).request("GET /repos/o/r/contents/gz");
    expect(answer.data).toEqual({ name: "gz", size: 3 });
    expect(api.seen.at(-1)?.headers["accept-encoding"]).toContain("gzip");
  });

  it("follows a redirect on the same origin with the token, and to another origin without it", async () => {
    const renamed = await octokitAt(api.url).request("GET /repos/o/old");
    expect(renamed.data).toEqual({ full_name: "o/new" });
    expect(renamed.url).toBe(`${api.url}/repos/o/new`);
    expect(api.seen.at(-1)?.headers["authorization"]).toContain("ghs_");

    const log = await octokitAt(api.url).request("GET /repos/o/r/actions/jobs/8/logs");
    expect(log.data).toBe("the log\n");
    expect(log.url).toBe(`${storage.url}/log`);
    expect(api.seen.at(-1)?.headers["authorization"]).toContain("ghs_");
    // The storage host never sees the installation token.
    expect(storage.seen.at(-1)?.headers["authorization"]).toBeUndefined();
  });

  it("streams the body when Octokit is told not to parse it", async () => {
    const answer = await octokitAt(api.url).request("GET /repos/o/r/actions/jobs/9/logs", {
      request: { parseSuccessResponseBody: false },
    });
    const stream = answer.data as unknown as ReadableStream<Uint8Array>;
    expect(stream).toBeInstanceOf(ReadableStream);
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of stream) {
      bytes += chunk.byteLength;
      chunks += 1;
    }
    expect(bytes).toBe(1_000_000);
    expect(chunks).toBeGreaterThan(1);
  });

  it("gives Octokit's RequestError with GitHub's message on an error status, and an empty 204", async () => {
    const octokit = octokitAt(api.url);
    await expect(octokit.request("GET /repos/o/r/missing")).rejects.toMatchObject({
      name: "HttpError",
      status: 404,
      message: "Not Found - https://docs.github.com/rest",
    });
    const deleted = await octokit.request("DELETE /repos/o/r/deleted");
    expect(deleted.status).toBe(204);
  });

  it("fails as fetch fails: refused connections carry the socket's error, an abort its reason", async () => {
    const closed = await startServer(() => undefined);
    const deadUrl = closed.url;
    await closed.close();
    const refused = await octokitAt(deadUrl)
      .request("GET /repos/o/r")
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ status: 500 });
    const cause = (refused as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(TypeError);
    expect((cause as TypeError).message).toBe("fetch failed");
    expect(((cause as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");

    // An abort rejects with the signal's reason, as fetch does (Octokit passes it on as it is).
    const fetch = createGitHubFetch();
    const controller = new AbortController();
    const hanging = fetch(`${api.url}/repos/o/r/hang`, { signal: controller.signal });
    await hangReceived;
    const reason = new Error("the task was stopped");
    controller.abort(reason);
    await expect(hanging).rejects.toBe(reason);
    await expect(fetch(`${api.url}/repos/o/r`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it("redirects as fetch does: a POST's 302 becomes a GET without a body, manual gives the 3xx, a loop fails", async () => {
    const fetch = createGitHubFetch();
    const landed = await fetch(`${api.url}/form`, {
      method: "POST",
      body: "a=1",
      headers: { "content-type": "text/plain" },
    });
    expect(await landed.json()).toEqual({ method: "GET", body: "" });
    expect(landed.redirected).toBe(true);
    expect(api.seen.at(-1)?.headers["content-type"]).toBeUndefined();
    const manual = await fetch(`${api.url}/form`, { method: "POST", body: "a=1", redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/landed");
    const loop = await fetch(`${api.url}/loop`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(loop).toBeInstanceOf(TypeError);
    expect(((loop as TypeError).cause as Error).message).toBe("too many redirects");
  });

  it("fails the read of a body the server cut short, and reads a body only once", async () => {
    const fetch = createGitHubFetch();
    // A redirect whose own body is cut while it is left unread is still followed.
    const followed = await fetch(`${api.url}/cut-redirect`);
    expect(await followed.json()).toEqual({ method: "GET", body: "" });
    const cut = await fetch(`${api.url}/cut`);
    expect(cut.status).toBe(200);
    await expect(cut.text()).rejects.toThrow("fetch failed");
    const whole = await fetch(`${api.url}/repos/o/r/collaborators/u/permission`);
    expect(await whole.json()).toEqual({ permission: "write" });
    expect(whole.bodyUsed).toBe(true);
    await expect(whole.text()).rejects.toThrow("already been read");
  });

  it("fails a call whose answer does not come within the idle timeout", async () => {
    const fetch = createGitHubFetch({ idleTimeoutMs: 50 });
    const failure = await fetch(`${api.url}/repos/o/r/hang`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(((failure as TypeError).cause as Error).message).toContain("no answer within 50 ms");
  });

  it("is what nock intercepts, as tests of the App's GitHub calls need", async () => {
    nock.disableNetConnect();
    try {
      const scope = nock("https://api.github.com").get("/repos/o/r").reply(200, { full_name: "o/r" });
      const answer = await octokitAt("https://api.github.com").request("GET /repos/{owner}/{repo}", {
        owner: "o",
        repo: "r",
      });
      expect(answer.data).toEqual({ full_name: "o/r" });
      expect(scope.isDone()).toBe(true);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });
});
