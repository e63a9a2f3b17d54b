import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { BudgetStore } from "../../../../src/doors/github-app/budgets/budget-store.js";
import {
  createInstallationBudgets,
  nextUtcMidnight,
  utcDay,
  type BudgetLimits,
} from "../../../../src/doors/github-app/budgets/create-installation-budgets.js";
import { createRedisBudgetStore } from "../../../../src/doors/github-app/budgets/create-redis-budget-store.js";
import { createSqliteBudgetStore } from "../../../../src/doors/github-app/budgets/create-sqlite-budget-store.js";

const REDIS_URL = process.env.AGENTFORGE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

interface StoreFactory {
  readonly name: string;
  setUp(): Promise<void>;
  open(): BudgetStore;
  tearDown(): Promise<void>;
}

let dir = "";
let prefix = "";
const factories: StoreFactory[] = [
  {
    name: "SQLite",
    async setUp() {
      dir = await mkdtemp(join(tmpdir(), "agentforge-budgets-"));
    },
    open: () => createSqliteBudgetStore(join(dir, "budgets.sqlite")),
    tearDown: () => rm(dir, { recursive: true, force: true }),
  },
  {
    name: "Redis",
    setUp() {
      prefix = `agentforge-test-${randomUUID()}`;
      return Promise.resolve();
    },
    open: () => createRedisBudgetStore({ connection: REDIS_URL, prefix }),
    async tearDown() {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  },
];

describe.each(factories)("installation budgets on $name", (factory) => {
  let clock: Date;
  const stores: BudgetStore[] = [];
  const open = (limits: BudgetLimits) => {
    const store = factory.open();
    stores.push(store);
    return createInstallationBudgets({ store, limits, now: () => clock, taskSlotMs: 10 * 60_000 });
  };
  beforeEach(async () => {
    clock = new Date("2026-03-14T19:00:00.000Z");
    await factory.setUp();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await factory.tearDown();
  });

  it("refuses after the daily token budget is spent, until the next UTC midnight", async () => {
    const budgets = open({ tokensPerDay: 1000 });
    expect(await budgets.check(1)).toEqual({ allowed: true });
    await budgets.record(1, { tokens: 600, costUsd: 0.1 });
    expect(await budgets.check(1)).toEqual({ allowed: true });
    await budgets.record(1, { tokens: 400, costUsd: 0.1 });
    expect(await budgets.check(1)).toEqual({
      allowed: false,
      reason: "tokens-per-day",
      resetsAt: new Date("2026-03-15T00:00:00.000Z"),
      used: 1000,
      limit: 1000,
    });
    // Another installation has its own budget.
    expect(await budgets.check(2)).toEqual({ allowed: true });
    clock = new Date("2026-03-14T23:59:59.999Z");
    expect((await budgets.check(1)).allowed).toBe(false);
    clock = new Date("2026-03-15T00:00:00.000Z");
    expect(await budgets.check(1)).toEqual({ allowed: true });
    expect(await budgets.usage(1)).toEqual({ tokens: 0, costUsd: 0 });
  });

  it("refuses after the daily cost budget is spent, summing fractional dollars exactly enough", async () => {
    const budgets = open({ costUsdPerDay: 0.3 });
    for (let index = 0; index < 3; index += 1) await budgets.record(5, { tokens: 10, costUsd: 0.1 });
    const usage = await budgets.usage(5);
    expect(usage.tokens).toBe(30);
    expect(usage.costUsd).toBeCloseTo(0.3, 9);
    await budgets.record(5, { tokens: 0, costUsd: 0.0001 });
    expect(await budgets.check(5)).toMatchObject({ allowed: false, reason: "cost-per-day", limit: 0.3 });
  });

  it("shares spending between two instances using the same store", async () => {
    const first = open({ tokensPerDay: 100 });
    const second = open({ tokensPerDay: 100 });
    await first.record(3, { tokens: 60, costUsd: 0 });
    await second.record(3, { tokens: 60, costUsd: 0 });
    expect((await first.check(3)).allowed).toBe(false);
    expect((await second.check(3)).allowed).toBe(false);
  });

  it("limits running tasks; a finished or expired task frees its slot", async () => {
    const budgets = open({ concurrentTasks: 2 });
    expect(await budgets.startTask(9, "a")).toEqual({ allowed: true });
    expect(await budgets.startTask(9, "b")).toEqual({ allowed: true });
    expect(await budgets.startTask(9, "a")).toEqual({ allowed: true }); // a renewal, not a third task
    expect(await budgets.startTask(9, "c")).toMatchObject({
      allowed: false,
      reason: "concurrent-tasks",
      limit: 2,
    });
    expect(await budgets.check(9)).toMatchObject({ allowed: false, reason: "concurrent-tasks", used: 2 });
    await budgets.finishTask(9, "a");
    expect(await budgets.startTask(9, "c")).toEqual({ allowed: true });
    clock = new Date(clock.getTime() + 10 * 60_000 + 1); // the slots of a crashed worker expire
    expect(await budgets.check(9)).toEqual({ allowed: true });
  });

  it("rejects negative usage", async () => {
    const budgets = open({ tokensPerDay: 10 });
    await expect(budgets.record(1, { tokens: -5, costUsd: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(budgets.record(1, { tokens: Number.NaN, costUsd: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});

describe("utcDay and nextUtcMidnight", () => {
  it("use UTC whatever the local time zone", () => {
    expect(utcDay(new Date("2026-03-14T23:30:00-05:00"))).toBe("2026-03-15");
    expect(nextUtcMidnight(new Date("2026-12-31T12:00:00Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
