import { z } from "zod";

export const DEFAULT_MODEL = "gpt-4.1-mini";

export interface ModelEnvironment {
  readonly apiKey: string | undefined;
  readonly baseURL: string | undefined;
  readonly model: string;
  /** False when AGENTFORGE_MODEL is unset and `model` is the default: a probe may pick the served one. */
  readonly isModelNamed: boolean;
  readonly fallbackModels: readonly string[];
}

export type ModelEnvironmentResult =
  | { readonly success: true; readonly value: ModelEnvironment }
  | { readonly success: false; readonly error: string };

/** An empty variable counts as unset: CI systems often export unset secrets as "". */
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const environmentSchema = z.object({
  OPENAI_API_KEY: optionalText.pipe(
    z.string().regex(/^\S+$/, "must be one token without spaces or line breaks").optional(),
  ),
  OPENAI_BASE_URL: optionalText.pipe(
    z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  ),
  AGENTFORGE_MODEL: optionalText.pipe(
    z
      .string()
      .regex(/^[^\s,]+$/, "must be one model name, without spaces or commas")
      .optional(),
  ),
  AGENTFORGE_FALLBACK_MODELS: optionalText.pipe(
    z
      .string()
      .transform((value) =>
        value
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== ""),
      )
      .pipe(z.array(z.string().regex(/^\S+$/, "model names must not contain spaces")))
      .optional(),
  ),
});

/** Reads the model's settings from the environment once, at the door. */
export function readModelEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ModelEnvironmentResult {
  const parsed = environmentSchema.safeParse({
    OPENAI_API_KEY: env["OPENAI_API_KEY"],
    OPENAI_BASE_URL: env["OPENAI_BASE_URL"],
    AGENTFORGE_MODEL: env["AGENTFORGE_MODEL"],
    AGENTFORGE_FALLBACK_MODELS: env["AGENTFORGE_FALLBACK_MODELS"],
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const variable = String(issue.path[0] ?? "environment");
      // Never echo the value: it may be the API key.
      return `${variable} ${issue.message}`;
    });
    return { success: false, error: problems.join("; ") };
  }
  const value = parsed.data;
  return {
    success: true,
    value: {
      apiKey: value.OPENAI_API_KEY,
      baseURL: value.OPENAI_BASE_URL,
      model: value.AGENTFORGE_MODEL ?? DEFAULT_MODEL,
      isModelNamed: value.AGENTFORGE_MODEL !== undefined,
      fallbackModels: value.AGENTFORGE_FALLBACK_MODELS ?? [],
    },
  };
}
