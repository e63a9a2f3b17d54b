import { z } from "zod";

/** Bumped when the checkpoint shape changes; a newer version is refused, not guessed at. */
export const PINNED_FACTS_VERSION = 1;

const commandFactSchema = z.object({
  command: z.string(),
  runs: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  lastExitCode: z.number().int().nullable(),
  lastOk: z.boolean(),
  lastTimedOut: z.boolean(),
});

const failureFactSchema = z.object({
  tool: z.string(),
  errorType: z.string(),
  target: z.string(),
  message: z.string(),
  count: z.number().int().positive(),
});

export const pinnedFactsDataSchema = z.object({
  version: z.number().int().positive(),
  goal: z.string(),
  filesRead: z.array(z.string()),
  filesChanged: z.array(z.string()),
  /** Distinct commands, the most recently run last. */
  commands: z.array(commandFactSchema),
  /** Commands that fell off the bounded list, kept as counts. */
  olderCommands: z.object({
    distinct: z.number().int().nonnegative(),
    runs: z.number().int().nonnegative(),
    failures: z.number().int().nonnegative(),
  }),
  /** Distinct failures, the most recent last. */
  failures: z.array(failureFactSchema),
  olderFailures: z.number().int().nonnegative(),
  artifacts: z.array(z.string()),
  plan: z.array(z.object({ step: z.string(), done: z.boolean() })),
});

export type CommandFact = z.infer<typeof commandFactSchema>;
export type FailureFact = z.infer<typeof failureFactSchema>;
export type PinnedFactsData = z.infer<typeof pinnedFactsDataSchema>;

export function emptyPinnedFactsData(goal: string): PinnedFactsData {
  return {
    version: PINNED_FACTS_VERSION,
    goal,
    filesRead: [],
    filesChanged: [],
    commands: [],
    olderCommands: { distinct: 0, runs: 0, failures: 0 },
    failures: [],
    olderFailures: 0,
    artifacts: [],
    plan: [],
  };
}
