import { pino } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { z } from "zod";

export type DependencyProbe =
  | { readonly success: true; readonly detail: string }
  | {
      readonly success: false;
      /** `unavailable`: nothing answered; `refused`: it answered no to these credentials. */
      readonly kind: "unavailable" | "refused";
      readonly variable: string;
      readonly error: string;
      readonly fix: string;
    };

/** The Redis URL without its password, for messages. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch (error) {
    if (error instanceof TypeError) return "(not a URL)";
    throw error;
  }
}

/** One connection and one PING, no retry: at start a Redis that does not answer is down. */
export async function probeRedis(url: string, timeoutMs = 3_000): Promise<DependencyProbe> {
  // Loaded here, not at the top: a server without REDIS_URL never loads ioredis.
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let lastError: unknown;
  // Without a listener ioredis prints every connection error itself; the probe reports the last one.
  redis.on("error", (error: unknown) => (lastError = error));
  try {
    await redis.connect();
    const answer = await redis.ping();
    return { success: true, detail: `PING ${describeRedisUrl(url)}: ${answer}` };
  } catch (error) {
    const cause = lastError ?? error;
    const code =
      typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
        ? cause.code
        : cause instanceof Error
          ? cause.message
          : String(cause);
    const isRefused = /NOAUTH|WRONGPASS|NOPERM/.test(code);
    return {
      success: false,
      kind: isRefused ? "refused" : "unavailable",
      variable: "REDIS_URL",
      error: `REDIS_URL: ${isRefused ? "Redis refused the credentials" : "Redis does not answer"} at ${describeRedisUrl(url)} (${code})`,
      fix: isRefused
        ? "Put the right user and password in REDIS_URL (redis://user:password@host:6379)."
        : "Start Redis, or set REDIS_URL to a server that answers (unset it to use the embedded queue).",
    };
  } finally {
    redis.disconnect(false);
  }
}

export interface GitHubAppCredentials {
  readonly appId: string;
  readonly privateKey: string;
  /** The REST base for GitHub Enterprise Server; github.com without it. */
  readonly baseUrl?: string;
}

const appSchema = z.object({ slug: z.string().min(1), name: z.string().optional() }).loose();

/** The status GitHub answered with; undefined when nothing answered (Octokit reports that as 500). */
function answeredStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("status" in error)) return undefined;
  if (!("response" in error) || error.response === undefined) return undefined;
  return typeof error.status === "number" ? error.status : undefined;
}

/**
 * What went wrong underneath: Octokit wraps fetch's "fetch failed", which wraps the socket's
 * error; the first `code` on the chain (ECONNREFUSED, ENOTFOUND) says it best.
 */
function describeCause(error: unknown): string {
  const field = (value: unknown, name: string): unknown =>
    typeof value === "object" && value !== null && name in value
      ? (value as Record<string, unknown>)[name]
      : undefined;
  let message = String(field(error, "message") ?? error);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    const code = field(current, "code");
    if (typeof code === "string" && code !== "") return code;
    const text = field(current, "message");
    if (typeof text === "string" && text !== "") message = text;
    current = field(current, "cause");
  }
  return message;
}

/** One try, no waiting: a probe reports what it found now, it does not wait for GitHub to come back. */
const OnceOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

/**
 * One `GET /app` with a JWT signed by the private key: the request that proves APP_ID and the
 * key belong together, and the app's slug (the mention people type, its bot login `slug[bot]`).
 */
export async function probeGitHubApp(
  credentials: GitHubAppCredentials,
  Octokit: typeof ProbotOctokit = OnceOctokit,
): Promise<DependencyProbe & { readonly slug?: string }> {
  const api = credentials.baseUrl ?? "https://api.github.com";
  const probot = new Probot({
    appId: credentials.appId,
    privateKey: credentials.privateKey,
    log: pino({ level: "silent" }),
    Octokit,
    ...(credentials.baseUrl === undefined ? {} : { baseUrl: credentials.baseUrl }),
  });
  try {
    const octokit = await probot.auth();
    const app = appSchema.parse((await octokit.request("GET /app")).data);
    return { success: true, slug: app.slug, detail: `GET ${api}/app: 200, the app "${app.slug}"` };
  } catch (error) {
    const status = answeredStatus(error);
    if (status === 401 || status === 403 || status === 404)
      return {
        success: false,
        kind: "refused",
        variable: "APP_ID",
        error: `APP_ID or PRIVATE_KEY: GET ${api}/app answered ${status}: GitHub does not accept this app's credentials`,
        fix: "Copy the App ID and a private key of the same app from its settings page (Settings → Developer settings → GitHub Apps).",
      };
    const variable = credentials.baseUrl === undefined ? "GitHub" : "GHE_HOST";
    const code = describeCause(error);
    return {
      success: false,
      kind: "unavailable",
      variable,
      error: `${variable === "GHE_HOST" ? "GHE_HOST: " : ""}GET ${api}/app ${status === undefined ? `got no answer (${code})` : `answered ${status}`}`,
      fix:
        variable === "GHE_HOST"
          ? "Check GHE_HOST and GHE_PROTOCOL: the GitHub Enterprise Server API must be reachable from this machine."
          : "Check this machine's network: GitHub's API must be reachable.",
    };
  }
}
