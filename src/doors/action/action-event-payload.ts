import { z } from "zod";

/** The few fields of the workflow's event payload the Action reads; everything else is ignored. */
const senderSchema = z.looseObject({ login: z.string().min(1), type: z.string().optional() });
const repositorySchema = z.looseObject({
  name: z.string().min(1),
  owner: z.looseObject({ login: z.string().min(1) }),
});

/** The labels hold the conversation's mode (paused, ignored); see conversation-mode.ts. */
const labels = z.array(z.looseObject({ name: z.string() })).nullish();

export const issueCommentPayloadSchema = z.looseObject({
  action: z.string(),
  issue: z.looseObject({
    number: z.number().int().positive(),
    // Present (an object) when the issue is a pull request.
    pull_request: z.unknown().optional(),
    state: z.string().optional(),
    labels,
  }),
  comment: z.looseObject({ id: z.number().int(), body: z.string().nullable() }),
  sender: senderSchema,
  repository: repositorySchema,
});

/** A comment on a line of a pull request's diff: a command there is answered in its thread. */
export const reviewCommentPayloadSchema = z.looseObject({
  action: z.string(),
  comment: z.looseObject({
    id: z.number().int(),
    body: z.string().nullable(),
    path: z.string().min(1),
    line: z.number().int().nullish(),
  }),
  pull_request: z.looseObject({ number: z.number().int().positive(), labels }),
  sender: senderSchema,
  repository: repositorySchema,
});

export const pullRequestPayloadSchema = z.looseObject({
  action: z.string(),
  number: z.number().int().positive().optional(),
  before: z.string().optional(),
  pull_request: z.looseObject({
    number: z.number().int().positive(),
    state: z.string(),
    draft: z.boolean().optional(),
    head: z.looseObject({ sha: z.string().min(1) }),
    labels,
  }),
  sender: senderSchema,
  repository: repositorySchema,
});

export const issuesPayloadSchema = z.looseObject({
  action: z.string(),
  issue: z.looseObject({ number: z.number().int().positive(), pull_request: z.unknown().optional() }),
  sender: senderSchema,
  repository: repositorySchema,
});

export const dispatchPayloadSchema = z.looseObject({
  inputs: z.record(z.string(), z.unknown()).nullable().optional(),
  sender: senderSchema.optional(),
});

export type IssueCommentPayload = z.infer<typeof issueCommentPayloadSchema>;
export type PullRequestPayload = z.infer<typeof pullRequestPayloadSchema>;

export type PayloadResult<T> =
  { readonly success: true; readonly value: T } | { readonly success: false; readonly error: string };

/** Validates a payload; the error names the event and the field that did not fit. */
export function parseEventPayload<T>(
  schema: z.ZodType<T>,
  eventName: string,
  payload: unknown,
): PayloadResult<T> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return { success: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined ? "" : `${issue.path.join(".") || "payload"}: ${issue.message}`;
  return { success: false, error: `the ${eventName} event payload does not look as expected (${where})` };
}
