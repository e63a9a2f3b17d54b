import pLimit from "p-limit";
import type { IntakeJournal, JournaledDelivery } from "../../queue/open-intake-journal.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { toWebhookResult, type AnyIntakeDecision } from "./to-webhook-result.js";
import { triageDelivery } from "./triage-delivery.js";

export type TriageOutcome = AnyIntakeDecision | "error";

export interface IntakeTriageOptions {
  /** Only its admit, settle and pending: on the intake thread these are messages to the journal's owner. */
  readonly journal: Pick<IntakeJournal, "admit" | "settle" | "pending">;
  readonly deps: IntakeDependencies;
  /** `background`: triage after the webhook is answered. `await`: before (tests only). */
  readonly mode: "background" | "await";
  /** Tries of one delivery's triage before it is given up (logged, counted as an error). */
  readonly attempts?: number;
  readonly retryDelayMs?: number;
  /** Deliveries triaged at once in the background; the others wait their turn in the journal's order. */
  readonly concurrency?: number;
  /** Called once per delivery when its triage ends, whatever the outcome. */
  readonly onTriaged?: (deliveryId: string, outcome: TriageOutcome) => void;
}

export interface IntakeTriage {
  /**
   * Records an admitted delivery in the journal (resolves once it is on disk) and starts its
   * triage; false for a redelivery, which is answered without a second triage.
   */
  accept(event: IntakeEvent, delivery: JournaledDelivery): Promise<boolean>;
  /**
   * Starts the triage of a delivery someone else already admitted to the journal (the intake
   * thread); does nothing while that delivery's triage is under way.
   */
  triageAdmitted(event: IntakeEvent): Promise<void>;
  /** Triages what the journal holds unsettled: deliveries answered before a crash or a stop. */
  resume(toEvent: (delivery: JournaledDelivery) => Promise<IntakeEvent>): Promise<void>;
  /** Tries under way now, and tries waiting for a turn. */
  load(): { readonly running: number; readonly waiting: number };
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_MS = 2_000;
/**
 * Each triage makes its GitHub requests one after another, so this bounds the requests in flight
 * well under GitHub's secondary limit of 100 concurrent requests, and a burst of deliveries is
 * answered first and triaged as GitHub answers, instead of opening hundreds of requests at once.
 */
export const DEFAULT_TRIAGE_CONCURRENCY = 32;

/**
 * Runs triage off the webhook's answer, at most `concurrency` deliveries at once. A delivery stays
 * in the journal until its triage has ended, so a crash in between means it is triaged again on
 * the next start (see `resume`).
 * A triage that throws (a store failure, GitHub down past its retries) is tried again after a
 * pause, then given up with an error in the log.
 */
export function createIntakeTriage(options: IntakeTriageOptions): IntakeTriage {
  const { journal, deps } = options;
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const running = new Set<string>();
  const limit = pLimit(options.concurrency ?? DEFAULT_TRIAGE_CONCURRENCY);

  const finish = async (event: IntakeEvent, outcome: TriageOutcome): Promise<void> => {
    deps.metrics?.recordWebhook(event.name, outcome === "error" ? "error" : toWebhookResult(outcome));
    try {
      await journal.settle(event.id);
    } finally {
      running.delete(event.id);
      options.onTriaged?.(event.id, outcome);
    }
  };

  const triageInBackground = async (event: IntakeEvent): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        // The turn is held for one try only: a delivery waiting to try again holds none.
        const decision = await limit(() => triageDelivery(event, deps));
        await finish(event, decision);
        return;
      } catch (error) {
        const details = { err: error, delivery: event.id, event: event.name, attempt, of: attempts };
        if (attempt >= attempts) {
          deps.logger.error(details, "triage failed; the delivery was given up");
          await finish(event, "error");
          return;
        }
        deps.logger.warn(details, "triage failed; trying again");
        // Unreferenced: a pending retry must not keep a stopping process alive; the journal keeps the delivery.
        await new Promise<void>((resolve) => setTimeout(resolve, retryDelayMs * attempt).unref());
      }
    }
  };

  /** Awaited triage keeps the old contract of a handler: its error fails the delivery. */
  const triageAwaited = async (event: IntakeEvent): Promise<void> => {
    let decision: AnyIntakeDecision;
    try {
      decision = await triageDelivery(event, deps);
    } catch (error) {
      await finish(event, "error");
      throw error;
    }
    await finish(event, decision);
  };

  const start = (event: IntakeEvent): Promise<void> => {
    if (running.has(event.id)) return Promise.resolve();
    running.add(event.id);
    if (options.mode === "await") return triageAwaited(event);
    triageInBackground(event).catch((error: unknown) =>
      deps.logger.error({ err: error, delivery: event.id }, "could not settle a triaged delivery"),
    );
    return Promise.resolve();
  };

  return {
    async accept(event, delivery) {
      if (!(await journal.admit(delivery))) return false;
      await start(event);
      return true;
    },
    triageAdmitted: start,
    load: () => ({ running: limit.activeCount, waiting: limit.pendingCount }),
    async resume(toEvent) {
      const pending = journal.pending();
      if (pending.length > 0)
        deps.logger.info({ deliveries: pending.length }, "triaging deliveries answered before the last stop");
      for (const delivery of pending) {
        try {
          await start(await toEvent(delivery));
        } catch (error) {
          deps.logger.error({ err: error, delivery: delivery.id }, "could not resume triage of a delivery");
        }
      }
    },
  };
}
