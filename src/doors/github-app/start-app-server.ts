import { readdir, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Probot } from "probot";
import { createRuntime, probeModelEndpoint } from "../../core/runtime/index.js";
import { z } from "zod";
import { createMetrics } from "../../observability/create-metrics.js";
import { INTAKE_JOURNAL_FILE_NAME } from "../../queue/open-intake-journal.js";
import { createOutageLog } from "../../observability/create-outage-log.js";
import { openTaskQueue } from "../../queue/open-task-queue.js";
import { listRecordedWorkspaces } from "../github/jobs/job-record-store.js";
import { createRepositoryCache, type RepositoryCache } from "../github/workspace/create-repository-cache.js";
import { sparesDirOf } from "../github/workspace/spare-tree.js";
import { openInstallationBudgets, type OpenedBudgets } from "./budgets/open-installation-budgets.js";
import { hasBudgetLimits, mergeBudgetLimits } from "./budgets/read-budget-limits.js";
import { AppStartError } from "./app-start-error.js";
import { createAppProbot } from "./create-app-probot.js";
import { createHealthServer } from "./create-health-server.js";
import { DEFAULT_WEBHOOK_PATH } from "./create-webhook-server.js";
import { startWebhookIntake } from "./intake-thread/start-webhook-intake.js";
import { startWebhookProxy, type WebhookProxy } from "./start-webhook-proxy.js";
import { decodeGitHubRequest } from "./github-request.js";
import { createRedactor, type Redactor } from "../../core/safety/index.js";
import { createRedactingLogger } from "./create-redacting-logger.js";
import type { AppServerSettings } from "./read-app-server-settings.js";
import { probeGitHubApp, probeRedis, type DependencyProbe } from "./probe-app-dependencies.js";

export { AppStartError } from "./app-start-error.js";
export { startSetupServer } from "./start-setup-server.js";
export { runAppDoctorChecks } from "./run-app-doctor-checks.js";
export {
  readAppServerSettings,
  type AppServerSettings,
  type AppSettingsResult,
} from "./read-app-server-settings.js";

export interface AppServer {
  /** The webhook server's URL; null in worker-only mode. */
  readonly url: string | null;
  /** Where `/healthz` and `/metrics` answer (the webhook server, or the worker's own). */
  readonly healthUrl: string;
  /** Stops intake, lets running tasks finish (they checkpoint as they go), closes the queue. */
  stop(): Promise<void>;
}

export interface StartAppServerOptions {
  readonly settings: AppServerSettings;
  readonly env: NodeJS.ProcessEnv;
  /** `serve`: intake, plus workers when the queue is embedded. `worker`: workers only. */
  readonly mode: "serve" | "worker";
}

/** Workspaces a killed process left, except those a task record names for resuming. */
async function removeLeftoverWorkspaces(cacheDir: string, dataDir: string): Promise<number> {
  const keep = await listRecordedWorkspaces(dataDir);
  const workspaces = path.join(cacheDir, "workspaces");
  const names = await readdir(workspaces).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  });
  const stale = names.map((name) => path.join(workspaces, name)).filter((full) => !keep.has(full));
  // Spares (and any half written) are written again after the next task of their repository.
  await Promise.all(
    [...stale, sparesDirOf(cacheDir)].map((full) => rm(full, { recursive: true, force: true })),
  );
  return stale.length;
}

/** A dependency that does not answer at start stops the process: one message, no retry loop. */
function requireDependency(probe: DependencyProbe): void {
  if (probe.success) return;
  throw new AppStartError(
    probe.kind === "refused" ? "CREDENTIALS_REFUSED" : "DEPENDENCY_UNAVAILABLE",
    probe.variable,
    `${probe.error}\n  fix: ${probe.fix}`,
  );
}

const tokenSchema = z.object({ token: z.string().min(1) }).loose();

/** A new installation token, asked for with the app's JWT (valid an hour; one per task is plenty). */
async function createInstallationToken(probot: Probot, installationId: number): Promise<string> {
  const appOctokit = await probot.auth();
  const response = await appOctokit.request("POST /app/installations/{installation_id}/access_tokens", {
    installation_id: installationId,
  });
  return tokenSchema.parse(response.data).token;
}

/** The App: Probot, the guarded webhook server with /healthz, the queue, and (when asked) workers. */
export async function startAppServer(options: StartAppServerOptions): Promise<AppServer> {
  const { settings, env } = options;
  const runsWorkers = options.mode === "worker" || !settings.hasRedis;
  // Checked before anything connects to it: Probot's rate limiter, the queue and the budgets
  // would otherwise each retry a dead Redis forever.
  if (settings.redisUrl !== undefined) requireDependency(await probeRedis(settings.redisUrl));
  // One redactor for the whole process: it starts with the App's own secrets, every run redacts
  // with it, and it learns the model key and every installation token as they come.
  const redactor: Redactor = createRedactor({ secrets: [settings.webhookSecret, settings.privateKey] });
  const redactingLog = await createRedactingLogger({
    level: settings.logLevel,
    logFormat: settings.logFormat,
    redact: (text) => redactor.redact(text),
    redactDeep: (value) => redactor.redactDeep(value),
  });
  const app = createAppProbot({
    log: redactingLog,
    appId: settings.appId,
    privateKey: settings.privateKey,
    webhookSecret: settings.webhookSecret,
    logLevel: settings.logLevel,
    logFormat: settings.logFormat,
    ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
    ...(settings.redisUrl === undefined ? {} : { redisUrl: settings.redisUrl }),
    throttleId: settings.redisPrefix,
  });
  const probot = app.probot;
  await probot.ready();
  const log = probot.log;
  // The app's slug is the mention people type, and its bot login `slug[bot]`; reading it proves
  // the credentials. Workers also need the model: an endpoint that does not answer stops them now.
  const github = await probeGitHubApp({
    appId: settings.appId,
    privateKey: settings.privateKey,
    ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }),
  });
  const model = runsWorkers ? await probeModelEndpoint(env) : null;
  try {
    requireDependency(github);
    // Invalid model settings are createRuntime's to report, with the same words as the CLI's.
    if (model !== null && !model.success && model.kind !== "settings")
      requireDependency({ ...model, kind: model.kind === "unreachable" ? "unavailable" : "refused" });
  } catch (error) {
    await app.close();
    throw error;
  }
  const appSlug = github.slug ?? "";
  if (model?.success === true)
    log.info(
      { url: model.url, status: model.status, models: model.models.slice(0, 20) },
      "model endpoint answers",
    );
  const runtime = await createRuntime({
    env,
    redactor,
    log: (message) => log.warn(message),
  });
  const redact = (text: string): string => redactor.redact(text);
  // The operator config's installation budgets, each overridden by its AGENTFORGE_BUDGET_* variable.
  const budgetLimits = mergeBudgetLimits(runtime.config.installation_budgets, settings.budgetLimits);
  const concurrentTasks = budgetLimits.concurrentTasks;
  // While running, a Redis outage is one error line, a summary a minute and a recovery line:
  // the queue's and the budgets' connections retry every second and would log each attempt.
  let probeQueue: () => Promise<unknown> = () => Promise.reject(new Error("the queue is not open yet"));
  const redisOutage =
    settings.redisUrl === undefined
      ? null
      : createOutageLog({ service: "Redis", variable: "REDIS_URL", logger: log, probe: () => probeQueue() });
  const queue = await openTaskQueue({
    decodePayload: decodeGitHubRequest,
    env,
    prefix: settings.redisPrefix,
    ...(redisOutage === null ? {} : { onError: (error: unknown) => redisOutage.reportError(error) }),
    ...(settings.leaseMs === undefined ? {} : { leaseMs: settings.leaseMs }),
    ...(settings.globalConcurrency === undefined ? {} : { globalConcurrency: settings.globalConcurrency }),
    // The queue holds an installation's extra tasks back instead of handing them to a worker.
    ...(concurrentTasks === undefined ? {} : { perInstallationConcurrency: concurrentTasks }),
  });
  probeQueue = () => queue.stats();
  const metrics = createMetrics({ queue, withProcessMetrics: true });
  const opened: OpenedBudgets | null = hasBudgetLimits(budgetLimits)
    ? await openInstallationBudgets({
        limits: budgetLimits,
        dataDir: runtime.dataDir,
        ...(settings.redisUrl === undefined ? {} : { redisUrl: settings.redisUrl }),
        redisPrefix: settings.redisPrefix,
        ...(redisOutage === null ? {} : { onRedisError: (error: unknown) => redisOutage.reportError(error) }),
      })
    : null;
  const budgets = opened === null ? {} : { budgets: opened.budgets };
  const workersController = new AbortController();
  let workersDone: Promise<unknown> = Promise.resolve();
  let cache: RepositoryCache | null = null;
  if (runsWorkers) {
    const cacheDir = path.join(runtime.dataDir, "cache");
    const removed = await removeLeftoverWorkspaces(cacheDir, runtime.dataDir);
    if (removed > 0) log.info({ removed }, "removed workspaces left by a stopped process");
    // The task path (jobs, review, checkout) loads only in a process that runs tasks: serve on
    // Redis only takes webhooks in.
    const [{ createGitHubTaskHandler }, { runGitHubTaskWorkers }] = [
      await import("./handle-github-task.js"),
      await import("./run-github-task-workers.js"),
    ];
    const handler = createGitHubTaskHandler({
      runner: runtime.runner,
      model: runtime.model,
      allowedModels: runtime.allowedModels,
      modelFor: (name) => runtime.modelFor(name),
      commandRunner: runtime.commandRunner,
      cache: (cache = createRepositoryCache({ cacheDir, spareTrees: settings.spareTrees })),
      dataDir: runtime.dataDir,
      appSlug,
      getInstallationToken: (installationId) => createInstallationToken(probot, installationId),
      logger: log,
      ...(settings.handOverIntervalMs === undefined
        ? {}
        : { handOverIntervalMs: settings.handOverIntervalMs }),
    });
    workersDone = runGitHubTaskWorkers({
      queue,
      handler,
      getInstallationOctokit: (id) => probot.auth(id),
      concurrency: settings.concurrency,
      signal: workersController.signal,
      redact,
      logger: log,
      metrics,
      ...budgets,
    });
  }
  const healthAndMetrics = { metrics, queue };
  // The serve process alone writes the intake journal; on Redis too, it lives in this machine's
  // data directory. Its intake thread answers webhooks; triage runs here, with the queue.
  let stopping: Promise<void> | null = null;
  const intake =
    options.mode === "serve"
      ? await startWebhookIntake({
          probot,
          secret: settings.webhookSecret,
          journalPath: path.join(runtime.dataDir, INTAKE_JOURNAL_FILE_NAME),
          host: settings.host,
          port: settings.port,
          healthAndMetrics,
          triage: { queue, appSlug, redact, logger: log, metrics, ...budgets },
          // Without its intake thread, serve takes no webhooks: stop, so the supervisor restarts it.
          onFailed: () => {
            process.exitCode = 1;
            void (stopping ??= stop());
          },
        })
      : null;
  const server = intake === null ? createHealthServer({ ...healthAndMetrics, logger: log }) : null;
  if (server !== null)
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, settings.host, () => resolve());
    });
  const baseUrl =
    intake?.url ?? `http://${settings.host}:${(server?.address() as AddressInfo | undefined)?.port ?? 0}`;
  log.info(
    {
      url: baseUrl,
      mode: options.mode,
      workers: runsWorkers,
      queue: settings.hasRedis ? "redis" : "embedded",
      ...(settings.hasRedis ? { redisPrefix: settings.redisPrefix } : {}),
      budgets: opened?.store ?? "none",
    },
    options.mode === "serve" ? "AgentForge is listening" : "AgentForge worker is running",
  );
  let proxy: WebhookProxy | null = null;
  async function stop(): Promise<void> {
    await proxy?.stop();
    // Intake first, so no new task arrives (answers under way end, and the journal is closed:
    // triage still under way is settled or, if cut short, triaged again at the next start); then
    // no new claims, and running tasks end (they checkpoint as they go, and a task stopped mid-run
    // is resumed by whichever worker claims it).
    const closing =
      server === null ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    server?.closeIdleConnections();
    const intakeClosed = intake?.close();
    workersController.abort();
    await workersDone;
    await cache?.close();
    server?.closeAllConnections();
    await closing;
    await intakeClosed;
    redisOutage?.close();
    await queue.close();
    await opened?.close();
    await app.close();
    await runtime.close();
  }
  if (options.mode === "serve" && settings.webhookProxyUrl !== undefined) {
    try {
      proxy = await startWebhookProxy({
        source: settings.webhookProxyUrl,
        target: `${baseUrl}${DEFAULT_WEBHOOK_PATH}`,
        logger: log,
      });
      log.info({ proxy: settings.webhookProxyUrl }, "forwarding the webhook channel to this server");
    } catch (error) {
      await stop();
      throw new AppStartError(
        "DEPENDENCY_UNAVAILABLE",
        "WEBHOOK_PROXY_URL",
        `WEBHOOK_PROXY_URL: the webhook channel ${settings.webhookProxyUrl} cannot be opened (${error instanceof Error ? error.message : String(error)})\n  fix: Create a channel (for example at https://smee.io/new) and set WEBHOOK_PROXY_URL to it, or unset it when GitHub reaches this server directly.`,
        { cause: error },
      );
    }
  }
  return {
    url: options.mode === "serve" ? baseUrl : null,
    healthUrl: baseUrl,
    stop() {
      stopping ??= stop();
      return stopping;
    },
  };
}
