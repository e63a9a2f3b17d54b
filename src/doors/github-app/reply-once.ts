import type { TaskQueue } from "../../queue/task-queue.js";

/**
 * Posts a delivery's reply, then remembers the delivery as answered. Triage of one delivery runs
 * once at a time, so the order is what matters: a post that fails (GitHub down, rate-limited)
 * leaves the delivery unanswered and its retry posts again, where remembering first would have
 * marked it answered and lost the reply. The price is rare: a crash between the post and the
 * record makes the retry post the reply a second time. False when it was answered already.
 */
export async function replyOnce(
  queue: Pick<TaskQueue<unknown>, "hasDelivery" | "rememberDelivery">,
  deliveryId: string,
  post: () => Promise<unknown>,
): Promise<boolean> {
  if (await queue.hasDelivery(deliveryId)) return false;
  await post();
  await queue.rememberDelivery(deliveryId);
  return true;
}
