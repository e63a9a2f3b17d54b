import { readFile } from "node:fs/promises";
import { readQueuePrefix } from "../../queue/read-queue-prefix.js";
import type { BudgetLimits } from "./budgets/create-installation-budgets.js";
import { readBudgetLimits } from "./budgets/read-budget-limits.js";
import { readPrivateKey } from "./read-private-key.js";
import {
  appEnvironmentSchema,
  describeEnvironmentIssues,
  type LOG_LEVELS,
} from "./app-environment-schema.js";

export interface AppServerSettings {
  readonly appId: string;
  readonly privateKey: string;
  readonly webhookSecret: string;
  readonly port: number;
  readonly host: string;
  /** The REST base for GitHub Enterprise Server (`GHE_PROTOCOL://GHE_HOST/api/v3`). */
  readonly baseUrl?: string;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly logFormat: "json" | "pretty";
  readonly hasRedis: boolean;
  /** Set with REDIS_URL: the queue, the budgets and Probot's rate limiting all use it. */
  readonly redisUrl?: string;
  /** The webhook channel `serve` forwards to its webhook path (WEBHOOK_PROXY_URL). */
  readonly webhookProxyUrl?: string;
  /** First part of every Redis key the queue and the budgets write (AGENTFORGE_QUEUE_PREFIX). */
  readonly redisPrefix: string;
  /** Per-installation budgets (AGENTFORGE_BUDGET_*); empty means none. */
  readonly budgetLimits: BudgetLimits;
  /** Milliseconds a worker holds a task without renewing; a dead worker's task is retried after it. */
  readonly leaseMs?: number;
  /** Tasks running at once across the whole deployment (every worker on the same queue). */
  readonly globalConcurrency?: number;
  readonly concurrency: number;
  /** How often a running task hands its run over to the queue for another worker (Redis only). */
  readonly handOverIntervalMs?: number;
  /**
   * Spare task folders the repository cache keeps written, one per recent repository, so a warm
   * checkout only writes what changed (AGENTFORGE_SPARE_TREES; each costs one work tree of disk).
   */
  readonly spareTrees: number;
}

/** Spare trees a process that runs workers keeps when AGENTFORGE_SPARE_TREES is unset. */
const DEFAULT_SPARE_TREES = 4;

export type AppSettingsResult =
  | { readonly success: true; readonly value: AppServerSettings }
  | { readonly success: false; readonly missing: readonly string[]; readonly problems: readonly string[] };

/** The private key as a PEM, from PRIVATE_KEY (PEM, escaped or base64) or the file PRIVATE_KEY_PATH names. */
async function readPrivateKeyFrom(
  key: string | undefined,
  keyPath: string | undefined,
  problems: string[],
): Promise<string> {
  if (key === undefined && keyPath === undefined) return "";
  const text =
    key ??
    (await readFile(keyPath ?? "", "utf8").catch((error: unknown) => {
      problems.push(
        `PRIVATE_KEY_PATH: cannot read ${keyPath} (${(error as NodeJS.ErrnoException).code ?? "error"}); set it to the .pem file GitHub generated for the app`,
      );
      return null;
    }));
  if (text === null) return "";
  const read = readPrivateKey(text, key === undefined ? "PRIVATE_KEY_PATH" : "PRIVATE_KEY");
  if (read.success) return read.value;
  problems.push(read.error);
  return "";
}

/** Reads the App's environment once, through its schema; every problem is named at once. */
export async function readAppServerSettings(env: NodeJS.ProcessEnv): Promise<AppSettingsResult> {
  const parsed = appEnvironmentSchema.safeParse(env);
  const problems = parsed.success ? [] : describeEnvironmentIssues(parsed.error);
  const budgetLimits = readBudgetLimits(env);
  if (!budgetLimits.success) problems.push(budgetLimits.error);
  // Checked with or without Redis, so a typo shows before the deployment moves to Redis.
  const redisPrefix = readQueuePrefix(env);
  if (!redisPrefix.success) problems.push(redisPrefix.error);
  const isSet = (name: string): boolean => (env[name] ?? "").trim() !== "";
  const missing: string[] = [];
  if (!isSet("APP_ID")) missing.push("APP_ID");
  const keyProblems: string[] = [];
  const privateKey = await readPrivateKeyFrom(
    isSet("PRIVATE_KEY") ? env["PRIVATE_KEY"] : undefined,
    isSet("PRIVATE_KEY_PATH") ? env["PRIVATE_KEY_PATH"] : undefined,
    keyProblems,
  );
  problems.push(...keyProblems);
  if (privateKey === "" && keyProblems.length === 0) missing.push("PRIVATE_KEY or PRIVATE_KEY_PATH");
  if (!isSet("WEBHOOK_SECRET")) missing.push("WEBHOOK_SECRET");
  if (
    !parsed.success ||
    !budgetLimits.success ||
    !redisPrefix.success ||
    missing.length > 0 ||
    problems.length > 0
  )
    return { success: false, missing, problems };
  const values = parsed.data;
  return {
    success: true,
    value: {
      appId: values.APP_ID ?? "",
      privateKey,
      webhookSecret: values.WEBHOOK_SECRET ?? "",
      port: values.PORT ?? 3000,
      host: values.HOST,
      ...(values.GHE_HOST === undefined
        ? {}
        : { baseUrl: `${values.GHE_PROTOCOL}://${values.GHE_HOST}/api/v3` }),
      logLevel: values.LOG_LEVEL,
      logFormat: values.LOG_FORMAT,
      hasRedis: values.REDIS_URL !== undefined,
      ...(values.REDIS_URL === undefined ? {} : { redisUrl: values.REDIS_URL }),
      ...(values.WEBHOOK_PROXY_URL === undefined ? {} : { webhookProxyUrl: values.WEBHOOK_PROXY_URL }),
      redisPrefix: redisPrefix.value,
      budgetLimits: budgetLimits.value,
      ...(values.AGENTFORGE_QUEUE_LEASE_MS === undefined
        ? {}
        : { leaseMs: values.AGENTFORGE_QUEUE_LEASE_MS }),
      ...(values.AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY === undefined
        ? {}
        : { globalConcurrency: values.AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY }),
      concurrency: values.AGENTFORGE_WORKER_CONCURRENCY ?? 2,
      ...(values.AGENTFORGE_HANDOFF_INTERVAL_MS === undefined
        ? {}
        : { handOverIntervalMs: values.AGENTFORGE_HANDOFF_INTERVAL_MS }),
      spareTrees: values.AGENTFORGE_SPARE_TREES ?? DEFAULT_SPARE_TREES,
    },
  };
}
