import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * Tells every process of one queue that a task became claimable, over Redis pub/sub, so an idle
 * worker in another process claims it at once instead of at its next poll (up to its `maxPollMs`,
 * a second by default). A message is only a hint: one lost while a subscriber reconnects, or sent
 * before it subscribed, leaves the task to the poll, as before. Each message names the process
 * that sent it, so a process does not hear its own (its listeners were told directly).
 */
export interface WakeChannel {
  /** Publishes that `taskId` may be claimed now; a failure is reported, never thrown. */
  announce(taskId: string): void;
  /** Calls `onWake` with the task id of each other process's announcement (subscribes once). */
  listen(onWake: (taskId: string) => void): void;
  close(): Promise<void>;
}

export interface WakeChannelOptions {
  /** The queue's connection: publishing shares it. Subscribing takes a connection of its own. */
  readonly redis: Redis;
  readonly channel: string;
  readonly reportError: (error: unknown, context: string) => void;
}

export function createWakeChannel(options: WakeChannelOptions): WakeChannel {
  const { redis, channel, reportError } = options;
  const sender = randomUUID();
  let subscriber: Redis | null = null;
  let isClosed = false;
  return {
    announce(taskId) {
      if (isClosed) return;
      redis
        .publish(channel, `${sender} ${taskId}`)
        .catch((error: unknown) => reportError(error, "wake publish"));
    },
    listen(onWake) {
      if (subscriber !== null || isClosed) return;
      const connection = redis.duplicate();
      subscriber = connection;
      connection.on("error", (error) => reportError(error, "wake subscriber"));
      connection.on("message", (_channel: string, message: string) => {
        const space = message.indexOf(" ");
        if (space <= 0 || message.slice(0, space) === sender) return;
        onWake(message.slice(space + 1));
      });
      connection.subscribe(channel).catch((error: unknown) => reportError(error, "wake subscribe"));
    },
    async close() {
      isClosed = true;
      await subscriber?.quit().catch(() => undefined);
      subscriber = null;
    },
  };
}
