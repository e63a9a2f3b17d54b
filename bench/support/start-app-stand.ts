import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  startMockModelServer,
  type MockModelServer,
  type RecordedRequest,
} from "../../src/mock-model/start-mock-model-server.js";
import { sendSignedWebhook } from "../../test/support/github-stand-in/send-signed-webhook.js";
import {
  startGitHubStandIn,
  userOf,
  type GitHubStandIn,
} from "../../test/support/github-stand-in/start-github-stand-in.js";
import { startAppProcess, type AppProcess } from "../../test/e2e/github-app/app-processes.js";
import {
  fixSteps,
  issueCommentPayload,
  OWNER,
  privateKey,
  PROJECT_FILES,
  REPO,
  script,
  WEBHOOK_SECRET,
} from "../../test/e2e/github-app/app-fixture.js";

export interface AppStandOptions {
  /** Each model answer takes this long (the mock server's delay). */
  readonly modelLatencyMs: number;
  /** Tasks each process runs at once (AGENTFORGE_WORKER_CONCURRENCY). */
  readonly tasksPerWorker: number;
  /** With a Redis URL: `serve` takes webhooks in and this many `agentforge worker` processes run tasks. */
  readonly redis?: { readonly url: string; readonly prefix: string; readonly workers: number };
  /** LOG_LEVEL of the App's processes (info logs the task path's steps). */
  readonly logLevel?: "info" | "warn";
  readonly extraEnv?: NodeJS.ProcessEnv;
}

export interface SentCommand {
  readonly issue: number;
  readonly deliveryId: string;
  /** performance.now() just before the webhook was sent, and when it was answered. */
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly status: number;
}

export interface AppStand {
  readonly github: GitHubStandIn;
  readonly model: MockModelServer;
  readonly serve: AppProcess;
  /** The processes that run tasks: `serve` itself on the embedded queue, else the workers. */
  readonly runners: readonly AppProcess[];
  /** Opens an issue and sends a signed `@agentforge fix this` comment on it. */
  sendFix(deliveryId: string): Promise<SentCommand>;
  /** Whether the fix on this issue has ended (its progress comment names a pull request). */
  isFixDone(issue: number): boolean;
  /** Chat requests the model server received so far. */
  chatRequests(): readonly RecordedRequest[];
  stop(): Promise<void>;
}

/**
 * The App as deployed, for benches: `agentforge serve` (and on Redis, `agentforge worker`
 * processes) in child processes, the GitHub stand-in (REST and git over HTTP), and the mock
 * model server answering each run by its turn (read, edit, answer) after `modelLatencyMs`.
 */
export async function startAppStand(options: AppStandOptions): Promise<AppStand> {
  const dataRoot = mkdtempSync(path.join(tmpdir(), "agentforge-bench-stand-"));
  const github = await startGitHubStandIn({
    repositories: [{ owner: OWNER, name: REPO, files: PROJECT_FILES }],
    permissions: { alice: "write" },
  });
  const model = await startMockModelServer({
    script: script(fixSteps()),
    steps: "turn",
    delayMs: options.modelLatencyMs,
  });
  const baseEnv = (dataDir: string): NodeJS.ProcessEnv => ({
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET,
    PORT: "0",
    HOST: "127.0.0.1",
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    LOG_LEVEL: options.logLevel ?? "warn",
    LOG_FORMAT: "json",
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "sk-bench-not-a-real-key-0000000000",
    AGENTFORGE_MODEL: "gpt-4.1-mini",
    AGENTFORGE_DATA_DIR: dataDir,
    AGENTFORGE_WORKER_CONCURRENCY: String(options.tasksPerWorker),
    // The engine's global limit is not what is measured: the workers' own concurrency is.
    AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY: "64",
    NODE_ENV: "production",
    ...(options.redis === undefined
      ? {}
      : { REDIS_URL: options.redis.url, AGENTFORGE_QUEUE_PREFIX: options.redis.prefix }),
    ...options.extraEnv,
  });
  const processes: AppProcess[] = [];
  try {
    const serve = await startAppProcess("serve", "serve", baseEnv(path.join(dataRoot, "serve")));
    processes.push(serve);
    const workerCount = options.redis?.workers ?? 0;
    const workers = await Promise.all(
      Array.from({ length: workerCount }, (_, index) =>
        startAppProcess("worker", `worker-${index + 1}`, baseEnv(path.join(dataRoot, `worker-${index + 1}`))),
      ),
    );
    processes.push(...workers);
    const webhookUrl = `${serve.url}/api/github/webhooks`;
    const repository = () => github.repository(OWNER, REPO);
    return {
      github,
      model,
      serve,
      runners: workers.length === 0 ? [serve] : workers,
      async sendFix(deliveryId) {
        const issue = github.addIssue(OWNER, REPO, {
          title: "sum returns the wrong value",
          body: "sum(2, 3) gives -1.",
          author: "alice",
        });
        const body = "@agentforge fix this";
        const commentId = github.addComment(OWNER, REPO, issue, body, "alice");
        const payload = issueCommentPayload({
          issueNumber: issue,
          commentId,
          body,
          login: "alice",
          userId: userOf("alice").id,
        });
        const sentAt = performance.now();
        const response = await sendSignedWebhook({
          url: webhookUrl,
          secret: WEBHOOK_SECRET,
          event: "issue_comment",
          deliveryId,
          payload,
        });
        return {
          issue,
          deliveryId,
          sentAt,
          answeredAt: sentAt + response.elapsedMs,
          status: response.status,
        };
      },
      isFixDone(issue) {
        return repository().comments.some(
          (comment) =>
            comment.issueNumber === issue &&
            comment.user.type === "Bot" &&
            /Opened #\d+|The run failed/.test(comment.body),
        );
      },
      chatRequests: () => model.requests.filter((request) => request.path === "/v1/chat/completions"),
      async stop() {
        for (const appProcess of processes) appProcess.cli.killHard();
        await Promise.all(processes.map((appProcess) => appProcess.cli.exited.catch(() => undefined)));
        await model.close();
        await github.close();
        rmSync(dataRoot, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const appProcess of processes) appProcess.cli.killHard();
    await model.close();
    await github.close();
    rmSync(dataRoot, { recursive: true, force: true });
    throw error;
  }
}
