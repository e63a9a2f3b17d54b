import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import { parseMockScript, type MockScript } from "../../../src/mock-model/mock-script.js";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as {
  name: string;
  examples: Record<string, unknown>[];
}[];

export const OWNER = "octo";
export const REPO = "demo";
export const INSTALLATION_ID = 77;
export const WEBHOOK_SECRET = "e2e-webhook-secret-value";

/** A small project with a bug and a test that shows it. */
export const PROJECT_FILES: Record<string, string> = {
  "sum.js": "function sum(a, b) {\n  return a - b;\n}\nmodule.exports = { sum };\n",
  "test.js":
    'const assert = require("node:assert");\nconst { sum } = require("./sum.js");\nassert.strictEqual(sum(2, 3), 5);\nconsole.log("ok");\n',
  ".github/agentforge.yml": 'test_commands: ["node test.js"]\n',
};

export const privateKey = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "pkcs1", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
}).privateKey;

/** The model side of one fix: read the file, edit it, then say what changed. */
export function fixSteps(firstDelayMs = 0): unknown[] {
  return [
    {
      type: "tool_calls",
      calls: [{ name: "read_file", arguments: { path: "sum.js" } }],
      ...(firstDelayMs > 0 ? { delay_ms: firstDelayMs } : {}),
    },
    {
      type: "tool_calls",
      calls: [
        {
          name: "edit_file",
          arguments: { path: "sum.js", old_string: "return a - b;", new_string: "return a + b;" },
        },
      ],
    },
    { type: "text", text: "Fixed `sum`: it subtracted its arguments instead of adding them." },
  ];
}

export function script(steps: unknown[]): MockScript {
  const parsed = parseMockScript({ steps });
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.value;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a real payload edited field by field
type Payload = Record<string, any>;

/** A real `issue_comment.created` payload, moved onto the stand-in's repository, issue and comment. */
export function issueCommentPayload(options: {
  issueNumber: number;
  commentId: number;
  body: string;
  login: string;
  userId: number;
}): Payload {
  const group = examples.find((entry) => entry.name === "issue_comment");
  const example = group?.examples.find((candidate) => candidate["action"] === "created");
  if (example === undefined) throw new Error("no issue_comment.created example");
  const payload = structuredClone(example) as Payload;
  const user = { ...payload["sender"], login: options.login, id: options.userId, type: "User" };
  payload["installation"] = { id: INSTALLATION_ID };
  payload["sender"] = user;
  payload["repository"] = {
    ...payload["repository"],
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { ...payload["repository"]["owner"], login: OWNER },
  };
  payload["issue"] = { ...payload["issue"], number: options.issueNumber, pull_request: undefined };
  delete payload["issue"]["pull_request"];
  payload["comment"] = { ...payload["comment"], id: options.commentId, body: options.body, user };
  return payload;
}
