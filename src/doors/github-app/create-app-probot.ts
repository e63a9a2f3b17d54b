import type { Logger } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { createGitHubFetch } from "./create-github-fetch.js";

export interface AppProbotSettings {
  readonly appId: string;
  readonly privateKey: string;
  readonly webhookSecret: string;
  readonly logLevel: "trace" | "debug" | "info" | "warn" | "error" | "fatal";
  readonly logFormat: "json" | "pretty";
  readonly baseUrl?: string;
  /** Probot's own REDIS_URL support: the throttle plugin's Bottleneck runs clustered on it. */
  readonly redisUrl?: string;
  /**
   * Prefixes the rate limiter's group keys (`b_octokit-write-<id>:<installation>`...), so
   * deployments sharing one Redis (AGENTFORGE_QUEUE_PREFIX) do not queue behind each other's
   * GitHub calls. Each installation keeps its own lane within it, as Probot gives it.
   */
  readonly throttleId?: string;
  /** The App's log (redacting); without it Probot builds its own from logLevel and logFormat. */
  readonly log?: Logger;
}

interface ClosableConnection {
  disconnect(flush?: boolean): Promise<unknown>;
}

function isClosableConnection(value: unknown): value is ClosableConnection {
  return (
    typeof value === "object" &&
    value !== null &&
    "disconnect" in value &&
    typeof value.disconnect === "function"
  );
}

/**
 * Probot for the App. With `redisUrl`, Probot hands the throttle plugin a Bottleneck Redis
 * connection, so every instance (serve and each worker) counts GitHub's rate limits together.
 * Probot keeps no public handle on that connection; it reaches the Octokit options of every
 * client it builds, so a thin Octokit subclass notes it there, and `close` disconnects it (its
 * sockets would otherwise keep a stopped process alive).
 */
export function createAppProbot(
  settings: AppProbotSettings,
  Octokit: typeof ProbotOctokit = ProbotOctokit,
): { readonly probot: Probot; readonly throttleConnections: ReadonlySet<unknown>; close(): Promise<void> } {
  const throttleConnections = new Set<unknown>();
  const githubFetch = createGitHubFetch();
  const Observed = Octokit.defaults((given: Record<string, unknown>) => {
    // Every GitHub call of the App goes over Node's HTTP client (see create-github-fetch.ts),
    // unless a fetch was given.
    const request = given["request"];
    const options: Record<string, unknown> = {
      ...given,
      request: { fetch: githubFetch, ...(typeof request === "object" && request !== null ? request : {}) },
    };
    const throttle = options["throttle"];
    if (typeof throttle !== "object" || throttle === null) return options;
    if ("connection" in throttle) throttleConnections.add(throttle.connection);
    if (settings.throttleId === undefined) return options;
    // Probot names each installation's limiter by its id: GitHub's write limits (one write a
    // second, paced notifications) hold per installation, so one installation's writes never wait
    // for another's. Replacing that id with the deployment's would put every installation in one lane.
    const installation = "id" in throttle && typeof throttle.id === "string" ? `:${throttle.id}` : "";
    return { ...options, throttle: { ...throttle, id: `${settings.throttleId}${installation}` } };
  });
  const probot = new Probot({
    appId: settings.appId,
    privateKey: settings.privateKey,
    secret: settings.webhookSecret,
    logLevel: settings.logLevel,
    logFormat: settings.logFormat,
    Octokit: Observed,
    ...(settings.log === undefined ? {} : { log: settings.log }),
    ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
    ...(settings.redisUrl === undefined ? {} : { redisConfig: settings.redisUrl }),
  });
  return {
    probot,
    throttleConnections,
    async close() {
      const closing = [...throttleConnections]
        .filter(isClosableConnection)
        .map((connection) => connection.disconnect(false));
      throttleConnections.clear();
      await Promise.allSettled(closing);
    },
  };
}
