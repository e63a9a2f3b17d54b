import { z } from "zod";
import { APPROVAL_MODES } from "../../core/policy/index.js";

export const ACTION_MODES = ["auto", "fix", "plan", "review", "run"] as const;
export type ActionMode = (typeof ACTION_MODES)[number];

/** The step's `with:` values, parsed once. Names follow action.yml. */
export interface ActionInputs {
  readonly mode: ActionMode;
  readonly prompt: string | undefined;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly githubToken: string | undefined;
  readonly approval: (typeof APPROVAL_MODES)[number];
  readonly maxTurns: number | undefined;
  readonly allowedCommands: readonly string[];
  /** Models a command may choose (`… with <model>`) besides `model`. */
  readonly allowedModels: readonly string[];
  /** The name comments address, without the `@` (`trigger-phrase`, default `@agentforge`). */
  readonly triggerName: string;
  /** The label that starts a fix on an issue or a review on a pull request; none by default. */
  readonly triggerLabel: string | undefined;
  /** Who `github-token` is: the author of the bot's pull requests and comments (red CI is fixed only on those). */
  readonly botLogin: string;
}

export type ActionInputsResult =
  | { readonly success: true; readonly value: ActionInputs }
  | { readonly success: false; readonly error: string };

/** The input names action.yml declares, in its order; a test keeps the two in step. */
export const ACTION_INPUT_NAMES = [
  "mode",
  "prompt",
  "model",
  "base-url",
  "api-key",
  "github-token",
  "approval",
  "max-turns",
  "allowed-commands",
  "allowed-models",
  "trigger-phrase",
  "trigger-label",
  "bot-login",
] as const;

export const DEFAULT_TRIGGER_NAME = "agentforge";

/** An empty input counts as unset: a workflow passes an absent secret as "". */
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const inputSchema = z.object({
  mode: optionalText.pipe(
    z.enum(ACTION_MODES, { error: `must be one of ${ACTION_MODES.join(", ")}` }).default("auto"),
  ),
  prompt: optionalText,
  model: optionalText.pipe(
    z
      .string()
      .regex(/^[^\s,]+$/, "must be one model name, without spaces or commas")
      .optional(),
  ),
  "base-url": optionalText.pipe(
    z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  ),
  "api-key": optionalText.pipe(
    z.string().regex(/^\S+$/, "must be one token without spaces or line breaks").optional(),
  ),
  "github-token": optionalText.pipe(
    z.string().regex(/^\S+$/, "must be one token without spaces or line breaks").optional(),
  ),
  approval: optionalText.pipe(
    z.enum(APPROVAL_MODES, { error: `must be one of ${APPROVAL_MODES.join(", ")}` }).default("never"),
  ),
  "max-turns": optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, "must be a whole number such as 30")
      .transform(Number)
      .pipe(z.number().int().min(1, "must be at least 1").max(500, "must be at most 500"))
      .optional(),
  ),
  "allowed-commands": optionalText.transform(splitList),
  "allowed-models": optionalText
    .transform(splitList)
    .pipe(
      z.array(
        z.string().regex(/^\S+$/, "must list model names without spaces, one a line or comma separated"),
      ),
    ),
  // A mention as GitHub spells a login: letters, digits and single dashes, at most 39 characters.
  "trigger-phrase": optionalText.pipe(
    z
      .string()
      .regex(
        /^@[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/,
        "must be a mention such as @agentforge: @ and a name of letters, digits and dashes",
      )
      .transform((phrase) => phrase.slice(1))
      .default(DEFAULT_TRIGGER_NAME),
  ),
  "trigger-label": optionalText.pipe(
    z.string().max(50, "must be a label name of at most 50 characters").optional(),
  ),
  "bot-login": optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/, 'must be a GitHub login such as "my-app[bot]"')
      .default("github-actions[bot]"),
  ),
});

/** A list input: one entry a line or comma separated; blank lines and `#` comments skipped. */
function splitList(value: string | undefined): string[] {
  return value === undefined
    ? []
    : value
        .split(/[\n,]/)
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "" && !entry.startsWith("#"));
}

/** How the runner hands an input to the step: `INPUT_` + the name upper-cased, dashes kept. */
export function inputVariableName(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

/**
 * Reads the inputs from the environment the runner sets. Errors name the input as the workflow
 * spells it (`max-turns`), so the fix is obvious from the log line alone.
 */
export function readActionInputs(env: NodeJS.ProcessEnv = process.env): ActionInputsResult {
  const raw = Object.fromEntries(ACTION_INPUT_NAMES.map((name) => [name, env[inputVariableName(name)]]));
  const parsed = inputSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "input");
      const value = raw[name];
      // Never echo a credential back into the log, even a malformed one.
      const shown =
        name === "api-key" || name === "github-token" || value === undefined ? "" : ` (got "${value}")`;
      return `input "${name}" ${issue.message}${shown}`;
    });
    return { success: false, error: problems.join("; ") };
  }
  const value = parsed.data;
  return {
    success: true,
    value: {
      mode: value.mode,
      prompt: value.prompt,
      model: value.model,
      baseUrl: value["base-url"],
      apiKey: value["api-key"],
      githubToken: value["github-token"],
      approval: value.approval,
      maxTurns: value["max-turns"],
      allowedCommands: value["allowed-commands"],
      allowedModels: value["allowed-models"],
      triggerName: value["trigger-phrase"],
      triggerLabel: value["trigger-label"],
      botLogin: value["bot-login"],
    },
  };
}
