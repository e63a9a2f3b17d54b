import { z } from "zod";

/**
 * The fields intake reads, checked before use: a signed payload is still only as well-formed
 * as its sender made it. Unknown fields pass through untouched.
 */
const account = z.object({ login: z.string().min(1).max(100), type: z.string().optional() });
const repository = z.object({
  name: z.string().min(1).max(100),
  owner: z.object({ login: z.string().min(1).max(100) }),
});
const installation = z.object({ id: z.number().int().positive() });
const positiveInt = z.number().int().positive();
/** The labels hold the conversation's mode (paused, ignored); see conversation-mode.ts. */
const labels = z.array(z.object({ name: z.string() }).loose()).nullish();

export const issueCommentPayloadSchema = z.object({
  action: z.string(),
  comment: z.object({ id: positiveInt, body: z.string().nullable(), user: account.nullable() }),
  issue: z.object({ number: positiveInt, pull_request: z.object({}).loose().nullish(), labels }),
  repository,
  installation,
  sender: account,
});

export const reviewCommentPayloadSchema = z.object({
  action: z.string(),
  comment: z.object({
    id: positiveInt,
    body: z.string().nullable(),
    user: account.nullable(),
    path: z.string(),
    line: z.number().int().nullish(),
  }),
  pull_request: z.object({ number: positiveInt, head: z.object({ sha: z.string() }), labels }),
  repository,
  installation,
  sender: account,
});

export const pullRequestPayloadSchema = z.object({
  action: z.string(),
  pull_request: z.object({
    number: positiveInt,
    draft: z.boolean().optional(),
    state: z.string(),
    head: z.object({ sha: z.string() }),
    labels,
  }),
  before: z.string().optional(),
  repository,
  installation,
  sender: account,
});

export const issuesLabeledPayloadSchema = z.object({
  action: z.string(),
  label: z.object({ name: z.string() }).optional(),
  issue: z.object({ number: positiveInt, pull_request: z.object({}).loose().nullish(), labels }),
  repository,
  installation,
  sender: account,
});

export const pullRequestLabeledPayloadSchema = z.object({
  action: z.string(),
  label: z.object({ name: z.string() }).optional(),
  pull_request: z.object({ number: positiveInt, labels }),
  repository,
  installation,
  sender: account,
});

/** A payload intake cannot act on. `status` makes the webhook middleware answer 400, not 500. */
export class WebhookPayloadError extends Error {
  override readonly name = "WebhookPayloadError";
  readonly code = "INVALID_WEBHOOK_PAYLOAD";
  readonly status = 400;
}

export function parseWebhookPayload<TSchema extends z.ZodType>(
  schema: TSchema,
  eventName: string,
  payload: unknown,
): z.output<TSchema> {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const where = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`)
    .join("; ");
  throw new WebhookPayloadError(`${eventName} payload is not usable: ${where}`);
}
