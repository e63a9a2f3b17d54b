import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { pino } from "pino";
import { Probot, ProbotOctokit } from "probot";
import type { TriageOutcome } from "../../../src/doors/github-app/create-intake-triage.js";
import { createAgentForgeApp } from "../../../src/doors/github-app/create-agent-forge-app.js";
import type { DoorLogger } from "../../../src/doors/github/github-logger.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { openIntakeJournal, type IntakeJournal } from "../../../src/queue/open-intake-journal.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";

const require = createRequire(import.meta.url);
const webhookExamples = require("@octokit/webhooks-examples") as {
  name: string;
  examples: Record<string, unknown>[];
}[];

export const API = "https://api.github.com";
export const INSTALLATION_ID = 4242;

/** Fixtures are edited freely field by field; a precise type would only get in the way here. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Payload = Record<string, any>;

/** A fresh copy of a real payload from @octokit/webhooks-examples, with an installation added. */
export function examplePayload(name: string, action: string, index = 0): Payload {
  const group = webhookExamples.find((entry) => entry.name === name);
  const matches = (group?.examples ?? []).filter((example) => example["action"] === action);
  const example = matches[index];
  if (example === undefined) throw new Error(`no example ${name}.${action}[${index}]`);
  const copy = structuredClone(example) as Payload;
  copy["installation"] = { id: INSTALLATION_ID };
  return copy;
}

export const privateKey = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "pkcs1", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
}).privateKey;

/** Retry and throttle off with the function form: the object form leaves the write throttle on. */
export const TestOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
  throttle: { enabled: false },
}));

export interface LoggedLine {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly details: object;
  readonly message: string;
}

export function createRecordingLogger(): DoorLogger & { lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const record = (level: LoggedLine["level"]) => (details: object, message: string) => {
    lines.push({ level, details, message });
  };
  return {
    lines,
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
}

export interface AppHarness {
  readonly probot: Probot;
  readonly queue: TaskQueue<GitHubRequest>;
  readonly journal: IntakeJournal;
  readonly logger: ReturnType<typeof createRecordingLogger>;
  /** Requests nock could not match: a request we did not expect at all. */
  readonly unmatched: string[];
  close(): Promise<void>;
}

export async function createAppHarness(
  options: {
    appSlug?: string;
    acknowledge?: "await" | "background";
    /** Reuse a folder (its queue and journal), as a restarted server would; kept on close. */
    dir?: string;
    onTriaged?: (deliveryId: string, outcome: TriageOutcome) => void;
  } = {},
): Promise<AppHarness> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "agentforge-app-")));
  const journal = await openIntakeJournal({ filePath: join(dir, "intake-journal.jsonl") });
  const queue = createSqliteTaskQueue({
    filePath: join(dir, "queue.sqlite"),
    decodePayload: decodeGitHubRequest,
  });
  const logger = createRecordingLogger();
  const probot = new Probot({ appId: 123, privateKey, Octokit: TestOctokit, log: pino({ level: "silent" }) });
  await probot.load(
    createAgentForgeApp({
      queue,
      journal,
      logger,
      ...(options.onTriaged === undefined ? {} : { onTriaged: options.onTriaged }),
      acknowledge: options.acknowledge ?? "await",
      ...(options.appSlug ? { appSlug: options.appSlug } : {}),
    }),
  );
  const unmatched: string[] = [];
  const onNoMatch = (request: { method?: string; path?: string; href?: string }): void => {
    unmatched.push(`${request.method ?? "?"} ${request.href ?? request.path ?? "?"}`);
  };
  nock.emitter.on("no match", onNoMatch);
  return {
    probot,
    queue,
    journal,
    logger,
    unmatched,
    async close() {
      nock.emitter.removeListener("no match", onNoMatch);
      await queue.close();
      await journal.close();
      if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Probot that mints installation Octokits against nock; its webhook secret is never used. */
export function createTestProbot(): Probot {
  return new Probot({
    appId: 1,
    privateKey,
    secret: "unused",
    Octokit: TestOctokit,
    log: pino({ level: "silent" }),
  });
}

export function mockInstallationToken(scope: nock.Scope): nock.Scope {
  return scope.post(`/app/installations/${INSTALLATION_ID}/access_tokens`).reply(200, {
    token: "ghs_test",
    permissions: { issues: "write", contents: "write", pull_requests: "write" },
  });
}

export function mockPermission(
  scope: nock.Scope,
  owner: string,
  repo: string,
  login: string,
  permission: string,
  roleName = permission,
): nock.Scope {
  return scope
    .get(`/repos/${owner}/${repo}/collaborators/${login}/permission`)
    .reply(200, { permission, role_name: roleName, user: { login } });
}

/**
 * Mocks Probot's config loader: the repository file, and when it is missing the owner's
 * `.github` repository. Records each request's query so a test can show no ref was sent.
 */
export function mockConfig(
  scope: nock.Scope,
  owner: string,
  repo: string,
  yamlText: string | null,
  seenQueries: string[] = [],
): nock.Scope {
  const path = (target: string) => (uri: string) => {
    const pathname = uri.split("?")[0]!;
    return (
      pathname.startsWith(`/repos/${owner}/${target}/`) &&
      /\/contents\/\.github(%2F|\/)agentforge\.yml$/.test(pathname)
    );
  };
  const record = (uri: string): void => {
    seenQueries.push(uri.split("?")[1] ?? "");
  };
  if (yamlText === null) {
    scope.get(path(repo)).reply((uri) => (record(uri), [404, { message: "Not Found" }]));
    return scope.get(path(".github")).reply((uri) => (record(uri), [404, { message: "Not Found" }]));
  }
  // GitHub answers a raw-media request with text/plain.
  return scope
    .get(path(repo))
    .reply((uri) => (record(uri), [200, yamlText, { "content-type": "text/plain; charset=utf-8" }]));
}
