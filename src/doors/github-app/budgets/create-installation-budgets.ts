import type { BudgetStore, DailyUsage } from "./budget-store.js";

export interface BudgetLimits {
  readonly tokensPerDay?: number;
  readonly costUsdPerDay?: number;
  readonly concurrentTasks?: number;
}

export type BudgetRefusalReason = "tokens-per-day" | "cost-per-day" | "concurrent-tasks";

export type BudgetCheck =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly reason: BudgetRefusalReason;
      /** Start of the next UTC day for daily budgets; a retry estimate for concurrent tasks. */
      readonly resetsAt: Date;
      /** What was used against the limit (tokens, US dollars or running tasks). */
      readonly used: number;
      readonly limit: number;
    };

export interface InstallationBudgetsOptions {
  readonly store: BudgetStore;
  readonly limits: BudgetLimits;
  readonly now?: () => Date;
  /** How long a running-task slot is held without renewal (a crashed worker frees it then). */
  readonly taskSlotMs?: number;
}

export interface InstallationBudgets {
  /** Whether a new task may start for this installation now. */
  check(installationId: number): Promise<BudgetCheck>;
  record(installationId: number, usage: DailyUsage): Promise<void>;
  /** Takes a running-task slot (checking the daily budgets first); call again to renew it. */
  startTask(installationId: number, taskId: string): Promise<BudgetCheck>;
  finishTask(installationId: number, taskId: string): Promise<void>;
  usage(installationId: number): Promise<DailyUsage>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of an instant, `YYYY-MM-DD`: budgets reset at midnight UTC everywhere. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function nextUtcMidnight(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** Per-installation budgets: tokens and cost per UTC day, and tasks running at once. */
export function createInstallationBudgets(options: InstallationBudgetsOptions): InstallationBudgets {
  const { store, limits } = options;
  const now = options.now ?? (() => new Date());
  const taskSlotMs = options.taskSlotMs ?? 60 * 60 * 1000;
  // A task slot frees when a running task ends; a minute is an honest guess for "try again".
  const concurrencyRetryMs = 60_000;

  async function checkDaily(installationId: number, at: Date): Promise<BudgetCheck> {
    if (limits.tokensPerDay === undefined && limits.costUsdPerDay === undefined) return { allowed: true };
    const used = await store.getUsage(installationId, utcDay(at));
    const resetsAt = nextUtcMidnight(at);
    if (limits.tokensPerDay !== undefined && used.tokens >= limits.tokensPerDay) {
      return {
        allowed: false,
        reason: "tokens-per-day",
        resetsAt,
        used: used.tokens,
        limit: limits.tokensPerDay,
      };
    }
    if (limits.costUsdPerDay !== undefined && used.costUsd >= limits.costUsdPerDay) {
      return {
        allowed: false,
        reason: "cost-per-day",
        resetsAt,
        used: used.costUsd,
        limit: limits.costUsdPerDay,
      };
    }
    return { allowed: true };
  }

  const refuseConcurrency = (at: Date, used: number, limit: number): BudgetCheck => ({
    allowed: false,
    reason: "concurrent-tasks",
    resetsAt: new Date(at.getTime() + concurrencyRetryMs),
    used,
    limit,
  });

  return {
    async check(installationId) {
      const at = now();
      const daily = await checkDaily(installationId, at);
      if (!daily.allowed || limits.concurrentTasks === undefined) return daily;
      const running = await store.countRunningTasks(installationId, at.getTime());
      return running >= limits.concurrentTasks
        ? refuseConcurrency(at, running, limits.concurrentTasks)
        : daily;
    },
    async record(installationId, usage) {
      if (!(usage.tokens >= 0 && usage.costUsd >= 0))
        throw new RangeError("usage must be non-negative numbers");
      await store.addUsage(installationId, utcDay(now()), usage);
    },
    async startTask(installationId, taskId) {
      const at = now();
      const daily = await checkDaily(installationId, at);
      if (!daily.allowed || limits.concurrentTasks === undefined) return daily;
      const limit = limits.concurrentTasks;
      const isStarted = await store.tryStartTask(
        installationId,
        taskId,
        limit,
        at.getTime(),
        at.getTime() + taskSlotMs,
      );
      return isStarted ? daily : refuseConcurrency(at, limit, limit);
    },
    finishTask(installationId, taskId) {
      return store.finishTask(installationId, taskId);
    },
    usage(installationId) {
      return store.getUsage(installationId, utcDay(now()));
    },
  };
}
