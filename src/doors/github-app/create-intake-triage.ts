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
  /**
   * The intake event of a journaled delivery (its payload parsed, an Octokit for its
   * installation), for the deliveries triage is given as they are journaled: made when the
   * delivery's turn comes, so one waiting for a turn holds only its journal record.
   */
  readonly toEvent: (delivery: JournaledDelivery) => Promise<IntakeEvent>;
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
  triageAdmitted(delivery: JournaledDelivery): Promise<void>;
  /** Triages what the journal holds unsettled: deliveries answered before a crash or a stop. */
  resume(): Promise<void>;
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

/** A delivery to triage: its id, its event, and the event's name for the counters. */
interface TriageItem {
  readonly id: string;
  event(): Promise<IntakeEvent>;
  /** With the action once the event is made; before, the name GitHub sent. */
  name(): string;
}

function madeItem(event: IntakeEvent): TriageItem {
  return { id: event.id, event: () => Promise.resolve(event), name: () => event.name };
}

/**
 * Runs triage off the webhook's answer, at most `concurrency` deliveries at once. A delivery stays
 * in the journal until its triage has ended, so a crash in between means it is triaged again on
 * the next start (see `resume`).
 * A triage that throws (a store failure, GitHub down past its retries, a payload that names no
 * installation) is tried again after a pause, then given up with an error in the log.
 */
export function createIntakeTriage(options: IntakeTriageOptions): IntakeTriage {
  const { journal, deps } = options;
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const running = new Set<string>();
  const limit = pLimit(options.concurrency ?? DEFAULT_TRIAGE_CONCURRENCY);

  const finish = async (item: TriageItem, outcome: TriageOutcome): Promise<void> => {
    deps.metrics?.recordWebhook(item.name(), outcome === "error" ? "error" : toWebhookResult(outcome));
    try {
      await journal.settle(item.id);
    } finally {
      running.delete(item.id);
      options.onTriaged?.(item.id, outcome);
    }
  };

  /** A journaled delivery's event is made at its first turn and kept for its later tries. */
  const journaledItem = (delivery: JournaledDelivery): TriageItem => {
    let made: IntakeEvent | null = null;
    return {
      id: delivery.id,
      event: async () => (made ??= await options.toEvent(delivery)),
      name: () => made?.name ?? delivery.name,
    };
  };

  const triageInBackground = async (item: TriageItem): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        // The turn is held for one try only: a delivery waiting to try again holds none.
        const decision = await limit(async () => triageDelivery(await item.event(), deps));
        await finish(item, decision);
        return;
      } catch (error) {
        const details = { err: error, delivery: item.id, event: item.name(), attempt, of: attempts };
        if (attempt >= attempts) {
          deps.logger.error(details, "triage failed; the delivery was given up");
          await finish(item, "error");
          return;
        }
        deps.logger.warn(details, "triage failed; trying again");
        // Unreferenced: a pending retry must not keep a stopping process alive; the journal keeps the delivery.
        await new Promise<void>((resolve) => setTimeout(resolve, retryDelayMs * attempt).unref());
      }
    }
  };

  /** Awaited triage keeps the old contract of a handler: its error fails the delivery. */
  const triageAwaited = async (item: TriageItem): Promise<void> => {
    let decision: AnyIntakeDecision;
    try {
      decision = await triageDelivery(await item.event(), deps);
    } catch (error) {
      await finish(item, "error");
      throw error;
    }
    await finish(item, decision);
  };

  const start = (item: TriageItem): Promise<void> => {
    if (running.has(item.id)) return Promise.resolve();
    running.add(item.id);
    if (options.mode === "await") return triageAwaited(item);
    triageInBackground(item).catch((error: unknown) =>
      deps.logger.error({ err: error, delivery: item.id }, "could not settle a triaged delivery"),
    );
    return Promise.resolve();
  };

  return {
    async accept(event, delivery) {
      if (!(await journal.admit(delivery))) return false;
      await start(madeItem(event));
      return true;
    },
    triageAdmitted: (delivery) => start(journaledItem(delivery)),
    load: () => ({ running: limit.activeCount, waiting: limit.pendingCount }),
    async resume() {
      const pending = journal.pending();
      if (pending.length > 0)
        deps.logger.info({ deliveries: pending.length }, "triaging deliveries answered before the last stop");
      for (const delivery of pending) {
        try {
          await start(journaledItem(delivery));
        } catch (error) {
          deps.logger.error({ err: error, delivery: delivery.id }, "could not resume triage of a delivery");
        }
      }
    },
  };
}
