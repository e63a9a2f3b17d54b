import { getTransformStream } from "@probot/pino";
import type { Writable } from "node:stream";
import pino, { type Logger } from "pino";

/**
 * The App's log, with every argument passed through the redactor before pino serialises it:
 * messages, merged objects and errors (whose message and stack can quote a git URL or a token).
 * Formatting (json or pretty) is Probot's own transform, so LOG_FORMAT keeps its meaning.
 */
export async function createRedactingLogger(options: {
  readonly level: string;
  readonly logFormat: "json" | "pretty";
  readonly redact: (text: string) => string;
  readonly redactDeep: (value: unknown) => unknown;
  readonly destination?: Writable;
}): Promise<Logger> {
  const transform = await getTransformStream({ logFormat: options.logFormat });
  transform.pipe(options.destination ?? process.stdout);
  const clean = (value: unknown): unknown => {
    if (typeof value === "string") return options.redact(value);
    if (value instanceof Error)
      return {
        type: value.name,
        message: options.redact(value.message),
        stack: options.redact(value.stack ?? ""),
      };
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          inner instanceof Error ? clean(inner) : options.redactDeep(inner),
        ]),
      );
    }
    return value;
  };
  return pino(
    {
      level: options.level,
      name: "agentforge",
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map(clean) as Parameters<typeof method>);
        },
      },
    },
    transform,
  );
}
