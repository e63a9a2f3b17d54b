import path from "node:path";
import type { BudgetStore } from "./budget-store.js";
import {
  createInstallationBudgets,
  type BudgetLimits,
  type InstallationBudgets,
} from "./create-installation-budgets.js";
import { createSqliteBudgetStore } from "./create-sqlite-budget-store.js";

export const BUDGET_FILE_NAME = "budgets.sqlite";

export interface OpenedBudgets {
  readonly budgets: InstallationBudgets;
  readonly store: "redis" | "sqlite";
  close(): Promise<void>;
}

/**
 * Budgets where every instance of the deployment sees them: Redis when the queue is on Redis
 * (intake and workers on several machines), otherwise a SQLite file in the data directory.
 */
export async function openInstallationBudgets(options: {
  readonly limits: BudgetLimits;
  readonly dataDir: string;
  readonly redisUrl?: string;
  readonly redisPrefix?: string;
  /** Redis connection errors (an outage); without it they are dropped. */
  readonly onRedisError?: (error: unknown) => void;
}): Promise<OpenedBudgets> {
  const redisUrl = options.redisUrl?.trim() ?? "";
  const store: BudgetStore =
    redisUrl === ""
      ? createSqliteBudgetStore(path.join(options.dataDir, BUDGET_FILE_NAME))
      : // ioredis loads only when the budgets live in Redis.
        (await import("./create-redis-budget-store.js")).createRedisBudgetStore({
          connection: redisUrl,
          ...(options.redisPrefix === undefined ? {} : { prefix: options.redisPrefix }),
          ...(options.onRedisError === undefined ? {} : { onError: options.onRedisError }),
        });
  return {
    budgets: createInstallationBudgets({ store, limits: options.limits }),
    store: redisUrl === "" ? "sqlite" : "redis",
    close: () => store.close(),
  };
}
