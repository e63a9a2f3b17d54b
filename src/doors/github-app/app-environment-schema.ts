import { z } from "zod";

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

/** An unset or blank variable is absent: `PORT=` means the default, not port 0. */
const blankIsAbsent = (value: unknown): unknown =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

/** The message names what was expected and what was found. */
const expecting =
  (expected: string) =>
  (issue: { readonly input?: unknown }): string =>
    `expected ${expected}, got ${JSON.stringify(issue.input)}`;

function wholeNumber(expected: string, minimum: number, maximum = Number.MAX_SAFE_INTEGER) {
  const error = expecting(expected);
  return z.preprocess(
    blankIsAbsent,
    z
      .string()
      .trim()
      .regex(/^\d+$/, { error })
      .transform(Number)
      .pipe(z.number().int().min(minimum, { error }).max(maximum, { error }))
      .optional(),
  );
}

/**
 * The App's environment (Probot's names, plus the queue's), one schema, read once at start-up.
 * Each variable's error says what was expected; the door turns them into `NAME: …` lines. The
 * budgets and the Redis key prefix have readers of their own (shared with the worker and the
 * benchmarks) and the private key may come from a file: those are checked beside it.
 */
export const appEnvironmentSchema = z.object({
  // The App ID (digits) or, as GitHub now also accepts for the JWT, the app's Client ID (Iv…).
  APP_ID: z.preprocess(
    blankIsAbsent,
    z
      .string()
      .trim()
      .regex(/^(\d+|Iv[0-9A-Za-z.]+)$/, {
        error: (issue) =>
          `expected the App ID, a number shown as "App ID" on the app's settings page, got ${JSON.stringify(issue.input)}`,
      })
      .optional(),
  ),
  PRIVATE_KEY: z.preprocess(blankIsAbsent, z.string().optional()),
  PRIVATE_KEY_PATH: z.preprocess(blankIsAbsent, z.string().optional()),
  WEBHOOK_SECRET: z.preprocess(blankIsAbsent, z.string().optional()),
  PORT: wholeNumber("a port number (0-65535)", 0, 65_535),
  HOST: z.preprocess(blankIsAbsent, z.string().default("localhost")),
  GHE_HOST: z.preprocess(blankIsAbsent, z.string().trim().optional()),
  GHE_PROTOCOL: z.preprocess(
    blankIsAbsent,
    z.enum(["http", "https"], { error: expecting("http or https") }).default("https"),
  ),
  LOG_LEVEL: z.preprocess(
    (value) => (typeof value === "string" && value.trim() !== "" ? value.trim().toLowerCase() : undefined),
    z.enum(LOG_LEVELS, { error: expecting(`one of ${LOG_LEVELS.join(", ")}`) }).default("info"),
  ),
  // Probot's rule: "json" is JSON lines, anything else the readable format.
  LOG_FORMAT: z.preprocess(
    blankIsAbsent,
    z
      .string()
      .optional()
      .transform((value): "json" | "pretty" => (value === "json" ? "json" : "pretty")),
  ),
  REDIS_URL: z.preprocess(blankIsAbsent, z.string().trim().optional()),
  // A smee channel `serve` forwards to its webhook path (GitHub cannot reach a laptop).
  WEBHOOK_PROXY_URL: z.preprocess(
    blankIsAbsent,
    z.url({ protocol: /^https?$/, error: expecting("an http(s) URL of a webhook channel") }).optional(),
  ),
  AGENTFORGE_QUEUE_LEASE_MS: wholeNumber("a whole number of milliseconds, at least 15000", 15_000),
  AGENTFORGE_QUEUE_GLOBAL_CONCURRENCY: wholeNumber("a whole number ≥ 1", 1),
  AGENTFORGE_WORKER_CONCURRENCY: wholeNumber("a whole number ≥ 1", 1),
  AGENTFORGE_HANDOFF_INTERVAL_MS: wholeNumber("a whole number of milliseconds ≥ 0", 0),
  AGENTFORGE_SPARE_TREES: wholeNumber("a whole number from 0 (no spares) to 64", 0, 64),
});

export type AppEnvironment = z.output<typeof appEnvironmentSchema>;

/** Every problem of the environment, one `NAME: what was expected` line each. */
export function describeEnvironmentIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}
