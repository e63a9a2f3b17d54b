import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { pino } from "pino";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { createAgentForgeApp } from "../src/doors/github-app/create-agent-forge-app.js";
import { createWebhookServer, DEFAULT_WEBHOOK_PATH } from "../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest, type GitHubRequest } from "../src/doors/github-app/github-request.js";
import { INTAKE_JOURNAL_FILE_NAME, openIntakeJournal } from "../src/queue/open-intake-journal.js";
import { openEmbeddedTaskQueue } from "../src/queue/open-embedded-task-queue.js";
import type { TaskQueue } from "../src/queue/task-queue.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { createSignedDeliveries } from "./support/create-signed-deliveries.js";
import { sendWebhookLoad, type LoadResult } from "./support/send-webhook-load.js";
import { startFakeGitHubApi, type FakeGitHubApi } from "./support/start-fake-github-api.js";
import { roundTo } from "./support/summarize-samples.js";
import { benchPrivateKey, listenForWebhooks, UnthrottledOctokit } from "./support/webhook-bench-app.js";

const SECRET = "bench-webhook-secret";
const INSTALLATION_ID = 4242;
const REQUESTS = 500;
const WARMUP = 30;
const CONCURRENCY = 10;
const DEADLINE_MS = 40_000;
const THROTTLED_REQUESTS = 10;
const CONFIG_YAML = 'allowed_commands: ["npm test"]\ntest_commands: ["npm test"]\n';

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.closeAllConnections();
    server.close((error) => (error === undefined ? resolve() : reject(error)));
  });
}

/** The baseline: Probot's own middleware and an app whose handler does nothing. */
async function startBareProbot(): Promise<Server> {
  const probot = new Probot({
    appId: 1,
    privateKey: benchPrivateKey,
    secret: SECRET,
    log: pino({ level: "silent" }),
  });
  const middleware = await createNodeMiddleware(
    (app) => {
      app.on("issue_comment.created", async () => {});
    },
    { probot, webhooksPath: DEFAULT_WEBHOOK_PATH },
  );
  return createServer((request, response) => {
    Promise.resolve(middleware(request, response))
      .then((handled) => {
        if (!handled) response.writeHead(404).end();
      })
      .catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
  });
}

interface Intake {
  readonly server: Server;
  readonly queue: TaskQueue<GitHubRequest>;
  readonly dataDir: string;
  /** Resolves once this many deliveries have been triaged (triage runs after the answer). */
  triaged(count: number): Promise<void>;
}

/** Our intake as `agentforge serve` wires it: guard, Probot, the app, the embedded queue on disk. */
async function startIntake(api: FakeGitHubApi, Octokit: typeof ProbotOctokit): Promise<Intake> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-intake-"));
  const queue = await openEmbeddedTaskQueue({
    decodePayload: decodeGitHubRequest,
    env: { AGENTFORGE_DATA_DIR: dataDir },
  });
  const probot = new Probot({
    appId: 1,
    privateKey: benchPrivateKey,
    secret: SECRET,
    baseUrl: api.url,
    Octokit,
    log: pino({ level: "silent" }),
  });
  let triagedCount = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const onTriaged = (): void => {
    triagedCount += 1;
    for (const waiter of waiters) if (triagedCount >= waiter.count) waiter.resolve();
  };
  const triaged = (count: number): Promise<void> =>
    triagedCount >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }));
  const journal = await openIntakeJournal({ filePath: path.join(dataDir, INTAKE_JOURNAL_FILE_NAME) });
  const server = await createWebhookServer({
    probot,
    app: createAgentForgeApp({ queue, journal, onTriaged: () => onTriaged() }),
    secret: SECRET,
  });
  return { server, queue, dataDir, triaged };
}

async function load(url: string, count: number, firstIssueNumber: number, concurrency = CONCURRENCY) {
  const deliveries = createSignedDeliveries({
    count,
    secret: SECRET,
    installationId: INSTALLATION_ID,
    commentBody: "@agentforge fix the parser so that YAML anchors work",
    firstIssueNumber,
  });
  return sendWebhookLoad({ url, deliveries, concurrency, deadlineMs: DEADLINE_MS });
}

function describeStatuses(result: LoadResult): string {
  const parts = Object.entries(result.statuses).map(([status, count]) => `${count}×${status}`);
  return `${parts.join(", ")}${result.isCutShort ? ", cut short by the deadline" : ""}`;
}

export const run: Benchmark = async () => {
  const api = await startFakeGitHubApi({ permission: "write", configYaml: CONFIG_YAML });
  const bareServer = await startBareProbot();
  const ours = await startIntake(api, UnthrottledOctokit);
  const throttled = await startIntake(api, ProbotOctokit);
  try {
    const bareUrl = await listenForWebhooks(bareServer);
    const oursUrl = await listenForWebhooks(ours.server);
    const throttledUrl = await listenForWebhooks(throttled.server);
    // Warm both: JIT, the token cache, the first SQLite pages.
    await load(bareUrl, WARMUP, 1);
    await load(oursUrl, WARMUP, 1);
    const bare = await load(bareUrl, REQUESTS, 10_001);
    const mine = await load(oursUrl, REQUESTS, 10_001);
    const accepted = WARMUP + REQUESTS;
    await ours.triaged(accepted);
    const stats = await ours.queue.stats();
    const reactions = api.counts.reaction;
    // Probot's default Octokit queues every write in one process-wide limiter, one per second.
    const slow = await load(throttledUrl, THROTTLED_REQUESTS, 50_001, THROTTLED_REQUESTS);

    const label = `${REQUESTS} signed issue_comment.created, ${CONCURRENCY} concurrent, keep-alive`;
    const mineLabel =
      "AgentForge intake (guard, signature, parse, permission, config, enqueue to SQLite, 👀)";
    const bareLabel = "bare Probot";
    return [
      {
        benchmark: "webhook-intake",
        case: `${bareLabel}, empty handler: throughput (${label}; ${describeStatuses(bare)})`,
        value: roundTo(bare.requestsPerSecond, 0),
        unit: "req/s",
      },
      {
        benchmark: "webhook-intake",
        case: `${bareLabel}, empty handler: p50 / p99 acknowledgement`,
        value: roundTo(bare.latency.median, 2),
        unit: "ms p50",
        baseline: roundTo(bare.latency.p99, 2),
        baselineLabel: "p99",
      },
      {
        benchmark: "webhook-intake",
        case: `${mineLabel}: throughput (${describeStatuses(mine)})`,
        value: roundTo(mine.requestsPerSecond, 0),
        unit: "req/s",
        baseline: roundTo(bare.requestsPerSecond, 0),
        baselineLabel: bareLabel,
        ratio: roundTo(mine.requestsPerSecond / bare.requestsPerSecond, 3),
      },
      {
        benchmark: "webhook-intake",
        case: `${mineLabel}: p50 acknowledgement`,
        value: roundTo(mine.latency.median, 2),
        unit: "ms",
        baseline: roundTo(bare.latency.median, 2),
        baselineLabel: bareLabel,
        ratio: roundTo(mine.latency.median / bare.latency.median, 2),
        target: "<= 100 ms (intake in milliseconds)",
        targetMet: mine.latency.median <= 100,
      },
      {
        benchmark: "webhook-intake",
        case: `${mineLabel}: p99 acknowledgement`,
        value: roundTo(mine.latency.p99, 2),
        unit: "ms",
        baseline: roundTo(bare.latency.p99, 2),
        baselineLabel: bareLabel,
        ratio: roundTo(mine.latency.p99 / bare.latency.p99, 2),
        target: "<= 1000 ms (acknowledged within a second)",
        targetMet: mine.latency.p99 <= 1000,
      },
      {
        benchmark: "webhook-intake",
        case: `full path taken: tasks queued and 👀 posted per accepted delivery (${stats.queued} queued, ${reactions} reactions, ${api.counts.unexpected} unexpected API calls)`,
        value: roundTo(Math.min(stats.queued, reactions) / accepted, 3),
        unit: "fraction",
        target: "1, no unexpected calls",
        targetMet: stats.queued === accepted && reactions >= accepted && api.counts.unexpected === 0,
      },
      {
        benchmark: "webhook-intake",
        case: `with Probot's default Octokit (write throttle on): ${THROTTLED_REQUESTS} deliveries at once, p99 acknowledgement (${describeStatuses(slow)})`,
        value: roundTo(slow.latency.p99, 0),
        unit: "ms",
        baseline: roundTo(slow.latency.median, 0),
        baselineLabel: "p50",
        target: "<= 1000 ms",
        targetMet: slow.latency.p99 <= 1000,
      },
    ] satisfies BenchRow[];
  } finally {
    await Promise.allSettled([close(bareServer), close(ours.server), close(throttled.server), api.close()]);
    for (const intake of [ours, throttled]) {
      await intake.queue.close();
      await rm(intake.dataDir, { recursive: true, force: true });
    }
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
