/**
 * What the Action says to the runner: log lines, outputs, masks and the job summary. The entry
 * point backs it with @actions/core; tests pass a recording one.
 */
export interface ActionIo {
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  setOutput(name: ActionOutputName, value: string): void;
  /** Masks the value in every later log line of the workflow run. */
  setSecret(value: string): void;
  appendSummary(markdown: string): Promise<void>;
}

/** The outputs action.yml declares; a test keeps the two in step. */
export const ACTION_OUTPUT_NAMES = [
  "result",
  "pr-url",
  "branch",
  "trace-path",
  "turns",
  "total-tokens",
  "cost-usd",
] as const;
export type ActionOutputName = (typeof ACTION_OUTPUT_NAMES)[number];
