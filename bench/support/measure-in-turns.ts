import { percentile, summarizeSamples, type SampleSummary } from "./summarize-samples.js";

export type TimedCase = readonly [name: string, action: () => Promise<unknown>];

export interface MeasureInTurnsOptions {
  readonly rounds: number;
  readonly warmupRounds: number;
  /** No new round starts past this; a loaded machine gets fewer rounds, not a hang. */
  readonly budgetMs?: number;
}

/** Samples per case, index i of every case from the same round, so pairs can be compared. */
export type RoundSamples = ReadonlyMap<string, readonly number[]>;

async function time(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/**
 * Runs every case once a round, starting each round one case later (A B C, B C A, ...), so a
 * burst of load on a shared machine hits every case alike and a slow first or last slot does not
 * stick to one case.
 */
export async function measureInTurns(
  cases: readonly TimedCase[],
  options: MeasureInTurnsOptions,
): Promise<RoundSamples> {
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  const started = performance.now();
  for (let round = -options.warmupRounds; round < options.rounds; round += 1) {
    if (round > 0 && options.budgetMs !== undefined && performance.now() - started > options.budgetMs) break;
    const offset = Math.max(round, 0);
    for (let turn = 0; turn < cases.length; turn += 1) {
      const [name, action] = cases[(turn + offset) % cases.length]!;
      const elapsed = await time(action);
      if (round >= 0) samples.get(name)!.push(elapsed);
    }
  }
  return samples;
}

export interface PairedComparison {
  readonly subject: SampleSummary;
  readonly baseline: SampleSummary;
  /** Of subject / baseline taken round by round: drift between rounds cancels. */
  readonly ratioMedian: number;
  readonly ratioP25: number;
  readonly ratioP75: number;
  /** Of subject − baseline, round by round. */
  readonly differenceMedian: number;
}

export function comparePaired(subject: readonly number[], baseline: readonly number[]): PairedComparison {
  const count = Math.min(subject.length, baseline.length);
  const ratios: number[] = [];
  const differences: number[] = [];
  for (let index = 0; index < count; index += 1) {
    ratios.push(subject[index]! / baseline[index]!);
    differences.push(subject[index]! - baseline[index]!);
  }
  ratios.sort((left, right) => left - right);
  return {
    subject: summarizeSamples(subject),
    baseline: summarizeSamples(baseline),
    ratioMedian: percentile(ratios, 0.5),
    ratioP25: percentile(ratios, 0.25),
    ratioP75: percentile(ratios, 0.75),
    differenceMedian: summarizeSamples(differences).median,
  };
}
