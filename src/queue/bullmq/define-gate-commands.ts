import type { Redis } from "ioredis";
import { QueueError } from "../queue-error.js";
import {
  ADMIT_SCRIPT,
  CANCEL_SCRIPT,
  SAVE_HAND_OVER_SCRIPT,
  COMPLETE_SCRIPT,
  ENQUEUE_SCRIPT,
  FAIL_SCRIPT,
  HAS_CAPACITY_SCRIPT,
  HEARTBEAT_SCRIPT,
  REMEMBER_DELIVERY_SCRIPT,
} from "./gate-scripts.js";

type ScriptArgument = string | number;
type GateCommand = (...args: ScriptArgument[]) => Promise<unknown>;

export interface GateCommands {
  readonly enqueue: GateCommand;
  readonly rememberDelivery: GateCommand;
  readonly hasCapacity: GateCommand;
  readonly admit: GateCommand;
  readonly complete: GateCommand;
  readonly fail: GateCommand;
  readonly heartbeat: GateCommand;
  readonly saveHandOver: GateCommand;
  readonly cancel: GateCommand;
}

/**
 * Registers the gate scripts on a connection. ioredis sends them by SHA and loads them again
 * when the server has forgotten them (Redis runs here without persistence and may restart).
 * Every call is prefixed with the gate's two key prefixes.
 */
export function defineGateCommands(redis: Redis, gatePrefix: string, lockPrefix: string): GateCommands {
  const define = (name: string, lua: string): GateCommand => {
    const commandName = `agentforgeGate${name}`;
    redis.defineCommand(commandName, { numberOfKeys: 0, lua });
    const command: unknown = (redis as unknown as Record<string, unknown>)[commandName];
    if (typeof command !== "function") {
      throw new QueueError("STORE_FAILED", `could not define the gate script ${commandName}`);
    }
    return (...args) =>
      (command as (...values: ScriptArgument[]) => Promise<unknown>).call(
        redis,
        gatePrefix,
        lockPrefix,
        ...args,
      );
  };
  return {
    enqueue: define("Enqueue", ENQUEUE_SCRIPT),
    rememberDelivery: define("RememberDelivery", REMEMBER_DELIVERY_SCRIPT),
    hasCapacity: define("HasCapacity", HAS_CAPACITY_SCRIPT),
    admit: define("Admit", ADMIT_SCRIPT),
    complete: define("Complete", COMPLETE_SCRIPT),
    fail: define("Fail", FAIL_SCRIPT),
    heartbeat: define("Heartbeat", HEARTBEAT_SCRIPT),
    saveHandOver: define("SaveHandOver", SAVE_HAND_OVER_SCRIPT),
    cancel: define("Cancel", CANCEL_SCRIPT),
  };
}

/** Script replies are arrays of strings and numbers; anything else means the gate is broken. */
export function asReply(value: unknown): readonly string[] {
  if (Array.isArray(value)) return value.map((item) => String(item));
  if (typeof value === "number" || typeof value === "string") return [String(value)];
  throw new QueueError("STORE_FAILED", "the queue gate returned an unexpected reply");
}
