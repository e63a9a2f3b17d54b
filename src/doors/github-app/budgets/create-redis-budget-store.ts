import { Redis } from "ioredis";
import type { BudgetStore } from "./budget-store.js";

const TWO_DAYS_SECONDS = 2 * 24 * 60 * 60;

/** Drops expired slots, then takes one if the limit allows (a renewal always does). */
const TRY_START_SCRIPT = `
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[2])
if redis.call("ZSCORE", KEYS[1], ARGV[1]) or redis.call("ZCARD", KEYS[1]) < tonumber(ARGV[3]) then
  redis.call("ZADD", KEYS[1], ARGV[4], ARGV[1])
  redis.call("EXPIRE", KEYS[1], 172800)
  return 1
end
return 0
`;

export interface RedisBudgetStoreOptions {
  readonly connection: string;
  readonly prefix?: string;
  /** Connection errors; ioredis would otherwise print each reconnect attempt's error itself. */
  readonly onError?: (error: unknown) => void;
}

/** Budgets in Redis, shared by every instance of a deployment. Daily counters expire after two days. */
export function createRedisBudgetStore(options: RedisBudgetStoreOptions): BudgetStore {
  const redis = new Redis(options.connection, { maxRetriesPerRequest: 3 });
  const reportError = options.onError ?? ((): void => undefined);
  redis.on("error", reportError);
  const base = `${options.prefix ?? "agentforge"}:budget:`;
  const usageKey = (installationId: number, day: string): string => `${base}usage:${installationId}:${day}`;
  const runningKey = (installationId: number): string => `${base}running:${installationId}`;
  return {
    async addUsage(installationId, day, usage) {
      const key = usageKey(installationId, day);
      await redis
        .multi()
        .hincrby(key, "tokens", Math.round(usage.tokens))
        .hincrbyfloat(key, "costUsd", usage.costUsd)
        .expire(key, TWO_DAYS_SECONDS)
        .exec();
    },
    async getUsage(installationId, day) {
      const [tokens, costUsd] = await redis.hmget(usageKey(installationId, day), "tokens", "costUsd");
      return { tokens: Number(tokens ?? 0), costUsd: Number(costUsd ?? 0) };
    },
    async tryStartTask(installationId, taskId, limit, now, expiresAt) {
      const reply = await redis.eval(
        TRY_START_SCRIPT,
        1,
        runningKey(installationId),
        taskId,
        now,
        limit,
        expiresAt,
      );
      return Number(reply) === 1;
    },
    async finishTask(installationId, taskId) {
      await redis.zrem(runningKey(installationId), taskId);
    },
    async countRunningTasks(installationId, now) {
      return redis.zcount(runningKey(installationId), `(${now}`, "+inf");
    },
    async close() {
      await redis.quit();
    },
  };
}
