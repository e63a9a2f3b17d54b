import type { ModelReport } from "./check-model.js";

/** One line of `agentforge doctor`. */
export interface DoctorCheck {
  readonly name: string;
  readonly status: "ok" | "warning" | "problem";
  readonly detail: string;
  /** How to fix it, for anything not ok. */
  readonly fix?: string;
  /** The model check's findings as fields, for `--json`. */
  readonly model?: ModelReport;
}
