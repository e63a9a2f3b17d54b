import { createHmac, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { SignedDelivery } from "./send-webhook-load.js";

const require = createRequire(import.meta.url);

interface ExampleGroup {
  readonly name: string;
  readonly examples: Record<string, unknown>[];
}

export interface DeliveryOptions {
  readonly count: number;
  readonly secret: string;
  readonly installationId: number;
  readonly commentBody: string;
  /** Issue numbers start here; each delivery gets its own issue, so none replaces another's task. */
  readonly firstIssueNumber: number;
}

/**
 * `issue_comment.created` deliveries built from GitHub's own example payload, each with its own
 * delivery id, issue and comment, signed with HMAC-SHA256 as GitHub signs them. Signing happens
 * here, before the clock starts: the sender's cost is not the server's.
 */
export function createSignedDeliveries(options: DeliveryOptions): SignedDelivery[] {
  const groups = require("@octokit/webhooks-examples") as ExampleGroup[];
  const template = groups
    .find((group) => group.name === "issue_comment")
    ?.examples.find((example) => example["action"] === "created");
  if (template === undefined) throw new Error("no issue_comment.created example payload found");
  return Array.from({ length: options.count }, (_, index) => {
    const payload = structuredClone(template) as {
      issue: { number: number };
      comment: { id: number; body: string };
      installation?: { id: number };
    };
    payload.issue.number = options.firstIssueNumber + index;
    payload.comment.id = 1_000_000 + options.firstIssueNumber + index;
    payload.comment.body = options.commentBody;
    payload.installation = { id: options.installationId };
    const body = Buffer.from(JSON.stringify(payload));
    const signature = createHmac("sha256", options.secret).update(body).digest("hex");
    return {
      body,
      headers: {
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/bench",
        "x-github-event": "issue_comment",
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": `sha256=${signature}`,
      },
    };
  });
}
