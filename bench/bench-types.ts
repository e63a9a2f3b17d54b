/** One figure of a benchmark, printed in the table of `npm run bench` and in its JSON. */
export interface BenchRow {
  readonly benchmark: string;
  readonly case: string;
  readonly value: number;
  readonly unit: string;
  /** The same measure for the comparison named in the issue (plain spawn, bare Probot...). */
  readonly baseline?: number;
  readonly baselineLabel?: string;
  /** value / baseline, or a target check written as text. */
  readonly ratio?: number;
  readonly target?: string;
  readonly targetMet?: boolean;
}

/** Every bench file exports `run` with this shape; bench/run-benchmarks.ts finds and calls them. */
export type Benchmark = () => Promise<readonly BenchRow[]>;
