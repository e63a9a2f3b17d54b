/** What one installation spent on one UTC day. */
export interface DailyUsage {
  readonly tokens: number;
  readonly costUsd: number;
}

/**
 * Where budgets are counted. The embedded store serves one machine; the Redis store is shared
 * by every instance of a deployment, so all of them see the same spending.
 */
export interface BudgetStore {
  /** `day` is the UTC date, `YYYY-MM-DD`. */
  addUsage(installationId: number, day: string, usage: DailyUsage): Promise<void>;
  getUsage(installationId: number, day: string): Promise<DailyUsage>;
  /**
   * Counts the task as running unless `limit` tasks already run. The slot expires at
   * `expiresAt` so a crashed worker cannot hold it forever. False when the limit is reached.
   */
  tryStartTask(
    installationId: number,
    taskId: string,
    limit: number,
    now: number,
    expiresAt: number,
  ): Promise<boolean>;
  finishTask(installationId: number, taskId: string): Promise<void>;
  countRunningTasks(installationId: number, now: number): Promise<number>;
  close(): Promise<void>;
}
