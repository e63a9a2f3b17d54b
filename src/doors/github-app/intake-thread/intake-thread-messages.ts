import type { WebhookResult } from "../../../observability/create-metrics.js";
import type { JournaledDelivery } from "../../../queue/open-intake-journal.js";
import type { WebhookRefusal } from "../create-webhook-guard.js";

/** What the intake thread is started with (its `workerData`). */
export interface IntakeThreadSettings {
  readonly secret: string;
  readonly path: string;
  readonly host: string;
  readonly port: number;
  readonly appSlug: string;
  readonly journalPath: string;
  readonly maxBodyBytes?: number;
  readonly maxDepth?: number;
  /** Where `/healthz` and `/metrics` are answered on the main thread (loopback); null: `/healthz` says ok. */
  readonly healthUrl: string | null;
}

export type IntakeLogLevel = "info" | "warn" | "error";

/** From the intake thread to the main thread. */
export type IntakeThreadEvent =
  | {
      readonly type: "intake-ready";
      readonly port: number;
      /** Journaled and never settled: answered before the last stop, still to be triaged. */
      readonly pending: readonly JournaledDelivery[];
    }
  | { readonly type: "delivery-admitted"; readonly delivery: JournaledDelivery }
  | {
      /** Deliveries answered since the last such message, counted by event and result. */
      readonly type: "webhooks-recorded";
      readonly counts: readonly {
        readonly event: string;
        readonly result: WebhookResult;
        readonly count: number;
      }[];
    }
  | { readonly type: "webhook-refused"; readonly refusal: WebhookRefusal }
  | {
      readonly type: "intake-log";
      readonly level: IntakeLogLevel;
      readonly fields: Readonly<Record<string, unknown>>;
      readonly message: string;
    }
  | { readonly type: "intake-closed" };

/** From the main thread to the intake thread. */
export type IntakeThreadCommand =
  { readonly type: "settle-delivery"; readonly id: string } | { readonly type: "close-intake" };
