export const QUEUE_PREFIX_VARIABLE = "AGENTFORGE_QUEUE_PREFIX";
export const DEFAULT_QUEUE_PREFIX = "agentforge";

/**
 * Every key is `<prefix>:...`. Without `:` in a prefix, no deployment's keys can fall under
 * another's `<prefix>:*`, so deleting one prefix's keys never touches another's; without glob
 * characters (`*?[]`) or hash-tag braces, `SCAN MATCH` and BullMQ take the prefix literally.
 */
const SAFE_PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;

export type QueuePrefixResult =
  { readonly success: true; readonly value: string } | { readonly success: false; readonly error: string };

/** Checks one prefix; the error names the variable it came from. */
export function parseQueuePrefix(text: string, source = QUEUE_PREFIX_VARIABLE): QueuePrefixResult {
  if (SAFE_PREFIX.test(text)) return { success: true, value: text };
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return {
    success: false,
    error: `${source}: expected 1 to 64 of the characters A-Z a-z 0-9 _ . - (a Redis key prefix), got ${JSON.stringify(shown)}`,
  };
}

/**
 * The prefix of every Redis key the App writes (queue and budgets): one per deployment, so
 * deployments or test runs sharing a Redis never see each other's keys. Unset or blank means
 * the default.
 */
export function readQueuePrefix(env: NodeJS.ProcessEnv = process.env): QueuePrefixResult {
  const text = env[QUEUE_PREFIX_VARIABLE]?.trim() ?? "";
  return text === "" ? { success: true, value: DEFAULT_QUEUE_PREFIX } : parseQueuePrefix(text);
}
