import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { z } from "zod";
import { buildAppManifest } from "./build-app-manifest.js";
import { DEFAULT_WEBHOOK_PATH } from "./create-webhook-server.js";
import { updateEnvFile } from "./update-env-file.js";

export interface SetupServerOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Where app.yml is read and .env written. */
  readonly cwd?: string;
  readonly port: number;
  readonly host: string;
}

export interface SetupServer {
  readonly url: string;
  stop(): Promise<void>;
}

const conversionSchema = z
  .object({
    id: z.number(),
    html_url: z.string(),
    pem: z.string().min(1),
    webhook_secret: z.string().nullable().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .loose();

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The server as the browser reached it (a proxy in front sets the forwarded headers). */
function originOf(request: IncomingMessage): string {
  const forwarded = request.headers["x-forwarded-proto"];
  const protocol = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim() ?? "http";
  const host = request.headers["x-forwarded-host"] ?? request.headers.host ?? "localhost";
  return `${protocol}://${Array.isArray(host) ? host[0] : host}`;
}

function page(response: ServerResponse, status: number, title: string, body: string): void {
  response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  response.end(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:40em;margin:3em auto">${body}</body></html>\n`,
  );
}

/**
 * The first-run page (what Probot's setup does, with the webhook URL right): it registers the
 * app on GitHub from app.yml through the manifest flow, with this server's webhook path (or the
 * WEBHOOK_PROXY_URL channel) as the webhook URL, then writes APP_ID, PRIVATE_KEY (base64) and
 * WEBHOOK_SECRET to `.env`. `agentforge serve` starts the App after a restart.
 */
export async function startSetupServer(options: SetupServerOptions): Promise<SetupServer> {
  const { env } = options;
  const cwd = options.cwd ?? process.cwd();
  const githubHost = (env["GHE_HOST"] ?? "").trim() || "github.com";
  const protocol = (env["GHE_PROTOCOL"] ?? "").trim() || "https";
  const web = `${protocol}://${githubHost}`;
  const api = githubHost === "github.com" ? "https://api.github.com" : `${web}/api/v3`;
  const org = (env["GH_ORG"] ?? "").trim();
  const createAppUrl = `${web}${org === "" ? "" : `/organizations/${encodeURIComponent(org)}`}/settings/apps/new`;
  const proxyUrl = (env["WEBHOOK_PROXY_URL"] ?? "").trim();

  async function showRegistration(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = originOf(request);
    const appYml = await readFile(path.join(cwd, "app.yml"), "utf8").catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    });
    const webhookUrl = proxyUrl === "" ? `${origin}${DEFAULT_WEBHOOK_PATH}` : proxyUrl;
    const manifest = buildAppManifest({ appYml, webhookUrl, setupUrl: origin });
    if (!manifest.success) return page(response, 500, "app.yml", `<p>${escapeHtml(manifest.error)}</p>`);
    const isLocal = /^https?:\/\/(localhost|127\.|\[::1\])/.test(webhookUrl);
    page(
      response,
      200,
      "Register AgentForge",
      `<h1>Register the GitHub App</h1>
<p>GitHub will send webhooks to <code>${escapeHtml(webhookUrl)}</code>.</p>
${isLocal ? `<p><strong>GitHub cannot reach this machine's localhost.</strong> Set WEBHOOK_PROXY_URL to a channel (for example from https://smee.io/new), restart, and register then; <code>agentforge serve</code> forwards the channel to this server.</p>` : ""}
<form action="${escapeHtml(createAppUrl)}" method="post">
<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest.value))}">
<button type="submit">Register GitHub App</button>
</form>`,
    );
  }

  async function finishRegistration(code: string, response: ServerResponse): Promise<void> {
    const endpoint = `POST ${api}/app-manifests/{code}/conversions`;
    const answer = await fetch(`${api}/app-manifests/${encodeURIComponent(code)}/conversions`, {
      method: "POST",
      headers: { accept: "application/vnd.github+json", "user-agent": "agentforge-setup" },
    });
    const text = await answer.text();
    const parsed = answer.ok ? conversionSchema.safeParse(JSON.parse(text)) : null;
    if (parsed === null || !parsed.success) {
      const reason =
        parsed === null
          ? `answered ${answer.status}`
          : `answered an app without ${parsed.error.issues.map((issue) => issue.path.join(".")).join(", ")}`;
      return page(
        response,
        502,
        "Registration failed",
        `<p>${escapeHtml(`${endpoint} ${reason}`)}: the code is single-use and expires after an hour; open the setup page again and register anew.</p>`,
      );
    }
    const app = parsed.data;
    await updateEnvFile(path.join(cwd, ".env"), {
      APP_ID: String(app.id),
      PRIVATE_KEY: Buffer.from(app.pem).toString("base64"),
      WEBHOOK_SECRET: app.webhook_secret ?? "",
      ...(app.client_id === undefined ? {} : { GITHUB_CLIENT_ID: app.client_id }),
      ...(app.client_secret === undefined ? {} : { GITHUB_CLIENT_SECRET: app.client_secret }),
      ...(proxyUrl === "" ? {} : { WEBHOOK_PROXY_URL: proxyUrl }),
    });
    response.writeHead(302, { location: `${app.html_url}/installations/new` }).end();
  }

  const server = createServer({ requestTimeout: 30_000 }, (request, response) => {
    const url = new URL(request.url ?? "/", "http://setup");
    const handle = async (): Promise<void> => {
      if (request.method !== "GET") return void response.writeHead(405, { allow: "GET" }).end();
      if (url.pathname === "/") return void response.writeHead(302, { location: "/probot" }).end();
      if (url.pathname === "/probot") return showRegistration(request, response);
      if (url.pathname === "/probot/setup") {
        const code = url.searchParams.get("code") ?? "";
        if (!/^[A-Za-z0-9_-]{1,200}$/.test(code))
          return page(
            response,
            400,
            "No code",
            "<p>GitHub's redirect carries a <code>code</code>; this one had none.</p>",
          );
        return finishRegistration(code, response);
      }
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    };
    handle().catch((error: unknown) => {
      if (!response.headersSent)
        page(
          response,
          500,
          "Setup failed",
          `<p>${escapeHtml(error instanceof Error ? error.message : String(error))}</p>`,
        );
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A browser keeps its connection open; the page has nothing left to serve it.
        server.closeAllConnections();
      }),
  };
}
