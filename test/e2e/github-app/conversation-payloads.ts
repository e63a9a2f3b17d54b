import { createRequire } from "node:module";
import { userOf } from "../../support/github-stand-in/start-github-stand-in.js";
import { INSTALLATION_ID, OWNER, REPO } from "./app-fixture.js";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as {
  name: string;
  examples: Record<string, unknown>[];
}[];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a real payload edited field by field
export type Payload = Record<string, any>;

/** A real payload from @octokit/webhooks-examples, moved onto the stand-in's repository and sender. */
export function standInPayload(name: string, action: string, sender: string): Payload {
  const example = examples
    .find((entry) => entry.name === name)
    ?.examples.find((candidate) => candidate["action"] === action);
  if (example === undefined) throw new Error(`no ${name}.${action} example`);
  const payload = structuredClone(example) as Payload;
  payload["installation"] = { id: INSTALLATION_ID };
  payload["sender"] = { ...payload["sender"], login: sender, id: userOf(sender).id, type: "User" };
  payload["repository"] = {
    ...payload["repository"],
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { ...payload["repository"]["owner"], login: OWNER },
  };
  return payload;
}

/** The app's bot user as GitHub shows it in `assignee` or `requested_reviewer`. */
export function appUser(slug = "agentforge"): Payload {
  return { login: `${slug}[bot]`, id: 9_000_001, type: "Bot" };
}

/** `issues.assigned`: the issue given to `assignee`. */
export function issueAssignedPayload(options: {
  issueNumber: number;
  sender: string;
  assignee: Payload;
}): Payload {
  const payload = standInPayload("issues", "assigned", options.sender);
  payload["issue"] = {
    ...payload["issue"],
    number: options.issueNumber,
    state: "open",
    assignee: options.assignee,
  };
  delete payload["issue"]["pull_request"];
  payload["assignee"] = options.assignee;
  return payload;
}

/** `pull_request.review_requested`: a review asked of `reviewer` on a stand-in pull request. */
export function reviewRequestedPayload(options: {
  pullNumber: number;
  headSha: string;
  headRef: string;
  sender: string;
  reviewer: Payload;
}): Payload {
  const payload = standInPayload("pull_request", "review_requested", options.sender);
  payload["number"] = options.pullNumber;
  payload["pull_request"] = {
    ...payload["pull_request"],
    number: options.pullNumber,
    state: "open",
    draft: false,
    head: { ...payload["pull_request"]["head"], sha: options.headSha, ref: options.headRef },
    requested_reviewers: [options.reviewer],
  };
  payload["requested_reviewer"] = options.reviewer;
  return payload;
}
