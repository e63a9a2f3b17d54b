import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { pino } from "pino";
import { createNodeMiddleware, Probot } from "probot";
import { readFile } from "node:fs/promises";
import type { TriageOutcome } from "../src/doors/github-app/create-intake-triage.js";
import { createAgentForgeApp } from "../src/doors/github-app/create-agent-forge-app.js";
import { createWebhookServer, DEFAULT_WEBHOOK_PATH } from "../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest } from "../src/doors/github-app/github-request.js";
import { createAppProbot } from "../src/doors/github-app/create-app-probot.js";
import { startWebhookIntake } from "../src/doors/github-app/intake-thread/start-webhook-intake.js";
import { INTAKE_JOURNAL_FILE_NAME, openIntakeJournal } from "../src/queue/open-intake-journal.js";
import { openEmbeddedTaskQueue } from "../src/queue/open-embedded-task-queue.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { createSignedDeliveries } from "./support/create-signed-deliveries.js";
import { sendLoadInThread } from "./support/send-load-in-thread.js";
import type { OpenLoopResult } from "./support/send-open-loop-load.js";
import type { LoadResult, SignedDelivery } from "./support/send-webhook-load.js";
import { startFakeGitHubApi, type FakeGitHubApiOptions } from "./support/start-fake-github-api.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";
import { benchPrivateKey, listenForWebhooks, UnthrottledOctokit } from "./support/webhook-bench-app.js";

const SECRET = "bench-webhook-secret";
const INSTALLATION_ID = 4242;
const RATE = 300;
/** 20 s as the issue asks; shorter for a quick look (`OPEN_LOOP_SECONDS=3`). */
const DURATION_S = Number(process.env["OPEN_LOOP_SECONDS"] ?? "20");
const COMMAND_EVERY = 5; // one delivery in five is a command: 20%
const GITHUB_LATENCY_MS = 300;
const SATURATION_REQUESTS = 3_000;
const SATURATION_CONCURRENCY = 32;
/**
 * Deliveries each server answers, closed loop, before its measured saturation run: our intake
 * answers on a thread of its own, started fresh for the case, whose code the JIT has not seen,
 * while bare Probot's code has already run in this process. Both get the same warm-up.
 */
const SATURATION_WARMUP = 1_000;
const SATURATION_ROUNDS = Number(process.env["SATURATION_ROUNDS"] ?? "3");
/** `OPEN_LOOP_CASES=saturation` runs the saturation pair alone (a quick look). */
const SATURATION_ONLY = process.env["OPEN_LOOP_CASES"] === "saturation";
const TRIAGE_DEADLINE_MS = 90_000;
const CONFIG_YAML = 'allowed_commands: ["npm test"]\ntest_commands: ["npm test"]\n';
const GITHUB_STAND_IN = {
  permission: "write",
  configYaml: CONFIG_YAML,
  latencyMs: GITHUB_LATENCY_MS,
} as const;

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** `count` deliveries, one in five a command on its own issue, the rest chatter; fresh ids each call. */
function mixedDeliveries(
  count: number,
  firstIssueNumber: number,
): { all: SignedDelivery[]; commands: number } {
  const commands = Math.floor(count / COMMAND_EVERY);
  const common = { secret: SECRET, installationId: INSTALLATION_ID, firstIssueNumber };
  const commandDeliveries = createSignedDeliveries({
    ...common,
    count: commands,
    commentBody: "@agentforge fix the YAML anchors",
  });
  const chatter = createSignedDeliveries({
    ...common,
    firstIssueNumber: firstIssueNumber + commands,
    count: count - commands,
    commentBody: "Thanks, this looks good to me.",
  });
  const all: SignedDelivery[] = [];
  for (let index = 0; index < count; index += 1) {
    const delivery = index % COMMAND_EVERY === 0 ? commandDeliveries.shift() : chatter.shift();
    if (delivery !== undefined) all.push(delivery);
  }
  return { all, commands };
}

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
      .catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
}

interface IntakeRun {
  readonly load: OpenLoopResult | LoadResult;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly triaged: number;
  readonly queued: number;
  readonly pendingAfter: number;
  readonly journal: { readonly records: number };
}

/**
 * Our intake as `serve` wires it (the intake thread answers, this thread triages), against a
 * GitHub stand-in; waits until every command is triaged.
 */
/** `threaded`: as `serve` runs it; `one-thread`: `createWebhookServer`, answers and triage on one loop. */
type IntakeShape = "threaded" | "one-thread";

async function startIntakeShape(
  shape: IntakeShape,
  probot: Probot,
  journalPath: string,
  triage: Parameters<typeof startWebhookIntake>[0]["triage"],
): Promise<{ url: string; close(): Promise<void> }> {
  if (shape === "threaded")
    return startWebhookIntake({ probot, secret: SECRET, journalPath, host: "127.0.0.1", port: 0, triage });
  const journal = await openIntakeJournal({ filePath: journalPath });
  const server = await createWebhookServer({
    probot,
    app: createAgentForgeApp({ ...triage, journal }),
    secret: SECRET,
  });
  const url = (await listenForWebhooks(server)).replace(DEFAULT_WEBHOOK_PATH, "");
  let closing: Promise<void> | null = null;
  return {
    url,
    close: () => (closing ??= close(server).then(() => journal.close())),
  };
}

async function runIntake(
  api: FakeGitHubApiOptions,
  send: (url: string) => Promise<IntakeRun["load"]>,
  commands: number,
  shape: IntakeShape = "threaded",
): Promise<IntakeRun> {
  const github = await startFakeGitHubApi(api);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-open-loop-"));
  const queue = await openEmbeddedTaskQueue({
    decodePayload: decodeGitHubRequest,
    env: { AGENTFORGE_DATA_DIR: dataDir },
  });
  const journalPath = path.join(dataDir, INTAKE_JOURNAL_FILE_NAME);
  const outcomes: Record<string, number> = {};
  let triaged = 0;
  let allTriaged: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allTriaged = resolve));
  const onTriaged = (_id: string, outcome: TriageOutcome): void => {
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    triaged += 1;
    if (triaged >= commands) allTriaged();
  };
  // As serve builds it (its GitHub fetch), with retries and the write throttle off.
  const app = createAppProbot(
    {
      appId: "1",
      privateKey: benchPrivateKey,
      webhookSecret: SECRET,
      logLevel: "fatal",
      logFormat: "json",
      baseUrl: github.url,
      log: pino({ level: "silent" }),
    },
    UnthrottledOctokit,
  );
  const probot = app.probot;
  const logger = pino({ level: "silent" });
  const intake = await startIntakeShape(shape, probot, journalPath, { queue, logger, onTriaged });
  try {
    const load = await send(`${intake.url}${DEFAULT_WEBHOOK_PATH}`);
    process.stderr.write(
      `answered; ${triaged} of ${commands} commands triaged; GitHub requests so far ${JSON.stringify(github.counts)}\n`,
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      done,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, TRIAGE_DEADLINE_MS))),
    ]);
    clearTimeout(timer);
    process.stderr.write(`triage: ${describeOutcomes(outcomes)}\n`);
    const stats = await queue.stats();
    // The journal belongs to the intake thread: read from its file once that thread has closed it.
    await intake.close();
    const journal = journalCounts(await readFile(journalPath, "utf8"));
    return {
      load,
      outcomes,
      triaged,
      queued: stats.queued,
      pendingAfter: journal.pending,
      journal: { records: journal.records },
    };
  } finally {
    await intake.close();
    await queue.close();
    await app.close();
    await github.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Records in the journal file, and admissions no settlement follows (left to triage). */
function journalCounts(text: string): { records: number; pending: number } {
  const open = new Set<string>();
  let records = 0;
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    records += 1;
    const record = JSON.parse(line) as { kind: string; id: string };
    if (record.kind === "admitted") open.add(record.id);
    else open.delete(record.id);
  }
  return { records, pending: open.size };
}

function describeStatuses(statuses: Readonly<Record<number, number>>): string {
  return Object.entries(statuses)
    .map(([status, count]) => `${count}×${status}`)
    .join(", ");
}

function describeOutcomes(outcomes: Readonly<Record<string, number>>): string {
  return Object.entries(outcomes)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(", ");
}

export const run: Benchmark = async () => {
  if (SATURATION_ONLY) return [await measureSaturation(GITHUB_STAND_IN)];
  const count = RATE * DURATION_S;
  const openLoop = (deliveries: SignedDelivery[]) => (url: string) =>
    sendLoadInThread({ kind: "open-loop", options: { url, deliveries, ratePerSecond: RATE } });
  const github = GITHUB_STAND_IN;

  // Warm-up of JIT and Probot's token cache on a short run each.
  const warmBare = await startBareProbot();
  await openLoop(mixedDeliveries(300, 1).all)(await listenForWebhooks(warmBare));
  await close(warmBare);
  const warm = mixedDeliveries(300, 1);
  await runIntake(github, openLoop(warm.all), warm.commands);

  const bareServer = await startBareProbot();
  const bare = await openLoop(mixedDeliveries(count, 10_001).all)(await listenForWebhooks(bareServer));
  const accepted = mixedDeliveries(count, 10_001);
  const ours = await runIntake(github, openLoop(accepted.all), accepted.commands);
  const oneThreadSet = mixedDeliveries(count, 10_001);
  const oneThread = await runIntake(github, openLoop(oneThreadSet.all), oneThreadSet.commands, "one-thread");
  const limited429 = mixedDeliveries(count, 10_001);
  const ours429 = await runIntake(
    { ...github, refuse: { status: 429, retryAfterSeconds: 60 } },
    openLoop(limited429.all),
    limited429.commands,
  );
  const limited403 = mixedDeliveries(count, 10_001);
  const ours403 = await runIntake(
    { ...github, refuse: { status: 403, retryAfterSeconds: 60 } },
    openLoop(limited403.all),
    limited403.commands,
  );
  await close(bareServer);
  const open = `open loop, ${RATE} deliveries/s for ${DURATION_S} s, 20% commands, GitHub stand-in answering in ${GITHUB_LATENCY_MS} ms`;
  const row = (
    name: string,
    result: IntakeRun,
    commands: number,
    expected: "enqueued" | "refused",
  ): BenchRow[] => {
    const load = result.load as OpenLoopResult;
    const exact =
      result.triaged === commands &&
      result.pendingAfter === 0 &&
      (expected === "enqueued"
        ? result.queued === commands && result.outcomes["enqueued"] === commands
        : result.queued === 0);
    return [
      {
        benchmark: "webhook-open-loop",
        case: `${name}: p99 acknowledgement (${open}; ${describeStatuses(load.statuses)}, ${load.errors} errors)`,
        value: roundTo(load.latency.p99, 2),
        unit: "ms",
        baseline: roundTo(bare.latency.p99, 2),
        baselineLabel: "bare Probot p99",
        ratio: roundTo(load.latency.p99 / bare.latency.p99, 2),
        target: "<= 20 ms and <= 2x bare Probot",
        targetMet: load.latency.p99 <= 20 && load.latency.p99 <= 2 * bare.latency.p99,
      },
      {
        benchmark: "webhook-open-loop",
        case: `${name}: p50 acknowledgement`,
        value: roundTo(load.latency.median, 2),
        unit: "ms",
        baseline: roundTo(bare.latency.median, 2),
        baselineLabel: "bare Probot p50",
        ratio: roundTo(load.latency.median / bare.latency.median, 2),
      },
      {
        benchmark: "webhook-open-loop",
        case: `${name}: commands triaged exactly once (${commands} commands: ${describeOutcomes(result.outcomes)}; ${result.queued} tasks queued; ${result.pendingAfter} left in the journal; ${result.journal.records} journal records)`,
        value: result.triaged,
        unit: "commands",
        baseline: commands,
        baselineLabel: "sent",
        target:
          expected === "enqueued"
            ? "every command queued exactly once"
            : "every command triaged once, none queued",
        targetMet: exact,
      },
    ];
  };
  return [
    {
      benchmark: "webhook-open-loop",
      case: `bare Probot, empty handler: p50 / p99 acknowledgement (${open}; ${describeStatuses(bare.statuses)}, ${bare.errors} errors)`,
      value: roundTo(bare.latency.median, 2),
      unit: "ms p50",
      baseline: roundTo(bare.latency.p99, 2),
      baselineLabel: "p99",
    },
    ...row("AgentForge intake (threaded, as serve runs it)", ours, accepted.commands, "enqueued"),
    ...row(
      "AgentForge intake in one thread (createWebhookServer)",
      oneThread,
      oneThreadSet.commands,
      "enqueued",
    ),
    ...row("AgentForge intake, stand-in answers 429 retry-after", ours429, limited429.commands, "refused"),
    ...row("AgentForge intake, stand-in answers 403 retry-after", ours403, limited403.commands, "refused"),
    await measureSaturation(github),
  ] satisfies BenchRow[];
};

/**
 * Closed-loop saturation, bare Probot against our intake, in alternating rounds (the machine is
 * shared: one pair says little), each server warmed up first; the ratio is taken per round, then
 * its median.
 */
async function measureSaturation(github: FakeGitHubApiOptions): Promise<BenchRow> {
  const rounds: { bare: number; ours: number; exactlyOnce: boolean }[] = [];
  for (let round = 0; round < SATURATION_ROUNDS; round += 1) {
    const bare = await saturateBare();
    const warmup = mixedDeliveries(SATURATION_WARMUP, 40_001);
    const measured = mixedDeliveries(SATURATION_REQUESTS, 50_001);
    const commands = warmup.commands + measured.commands;
    const ours = await runIntake(
      github,
      async (url) => {
        await saturate(url, warmup.all);
        return saturate(url, measured.all);
      },
      commands,
    );
    const answered = (ours.load as LoadResult).statuses[200] ?? 0;
    if (answered !== SATURATION_REQUESTS || (bare.statuses[200] ?? 0) !== SATURATION_REQUESTS)
      throw new Error(
        `a saturation round was not answered 200 throughout: ours ${describeStatuses(ours.load.statuses)}, bare ${describeStatuses(bare.statuses)}`,
      );
    rounds.push({
      bare: bare.requestsPerSecond,
      ours: (ours.load as LoadResult).requestsPerSecond,
      exactlyOnce:
        ours.triaged === commands &&
        ours.pendingAfter === 0 &&
        ours.queued === commands &&
        ours.outcomes["enqueued"] === commands,
    });
  }
  const ratios = summarizeSamples(rounds.map((round) => round.ours / round.bare));
  const inexact = rounds.filter((round) => !round.exactlyOnce).length;
  const range = `${roundTo(ratios.min, 2)}–${roundTo(ratios.max, 2)}×`;
  return {
    benchmark: "webhook-open-loop",
    case: `saturation throughput, closed loop, ${SATURATION_CONCURRENCY} in flight, ${SATURATION_REQUESTS} deliveries after ${SATURATION_WARMUP} of warm-up on the same server, 20% commands, median of ${SATURATION_ROUNDS} alternating rounds (ratios ${range}; rounds ours/bare: ${rounds.map((round) => `${Math.round(round.ours)}/${Math.round(round.bare)}`).join(", ")} req/s; rounds where a command was not queued exactly once: ${inexact})`,
    value: roundTo(summarizeSamples(rounds.map((round) => round.ours)).median, 0),
    unit: "req/s",
    baseline: roundTo(summarizeSamples(rounds.map((round) => round.bare)).median, 0),
    baselineLabel: "bare Probot",
    ratio: roundTo(ratios.median, 2),
    target: ">= 0.8x bare Probot, every command queued exactly once",
    targetMet: ratios.median >= 0.8 && inexact === 0,
  };
}

function saturate(url: string, deliveries: SignedDelivery[]): Promise<LoadResult> {
  return sendLoadInThread({
    kind: "closed-loop",
    options: { url, deliveries, concurrency: SATURATION_CONCURRENCY, deadlineMs: 60_000 },
  });
}

async function saturateBare(): Promise<LoadResult> {
  const server = await startBareProbot();
  try {
    const url = await listenForWebhooks(server);
    await saturate(url, mixedDeliveries(SATURATION_WARMUP, 40_001).all);
    return await saturate(url, mixedDeliveries(SATURATION_REQUESTS, 50_001).all);
  } finally {
    await close(server);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
