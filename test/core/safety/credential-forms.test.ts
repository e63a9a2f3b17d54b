import { describe, expect, it } from "@jest/globals";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { azureDevOpsPat, BASE32_LOWER, BASE62, createRandom, HEX } from "./secret-corpus.js";

/**
 * Table tests for credential forms that need their context to be recognised. Each row names the
 * exact output, so a rule that stops matching (or starts hiding the host, the user or the next
 * line) fails its row.
 */
type Row = readonly [name: string, input: string, expected: string];

const random = createRandom(4242);
const redactor = createRedactor();
const password = random(BASE62, 20);
const otherPassword = `${random(BASE62, 14)}!x`;

function expectRows(rows: readonly Row[]): void {
  it.each(rows)("%s", (_name, input, expected) => {
    expect(redactor.redact(input)).toBe(expected);
  });
}

describe("connection URLs", () => {
  const marker = "[REDACTED:url-credentials]";
  expectRows([
    [
      "redis, password only",
      `redis://:${password}@cache.internal:6379/0`,
      `redis://:${marker}@cache.internal:6379/0`,
    ],
    [
      "rediss, user and password",
      `rediss://default:${password}@cache:6380/1`,
      `rediss://${marker}@cache:6380/1`,
    ],
    [
      "postgres, password only, with a query",
      `postgres://:${password}@db.internal:5432/app?sslmode=require`,
      `postgres://:${marker}@db.internal:5432/app?sslmode=require`,
    ],
    ["amqp, password only", `amqp://:${password}@rabbit:5672/%2F`, `amqp://:${marker}@rabbit:5672/%2F`],
    [
      "mongodb, password only, replica set",
      `mongodb://:${password}@mongo-0:27017,mongo-1:27017/admin?replicaSet=rs0`,
      `mongodb://:${marker}@mongo-0:27017,mongo-1:27017/admin?replicaSet=rs0`,
    ],
    [
      "http proxy, password only",
      `HTTPS_PROXY=http://:${password}@proxy.internal:3128`,
      `HTTPS_PROXY=http://:${marker}@proxy.internal:3128`,
    ],
    [
      "password holding an unencoded @",
      `git clone https://deploy:${password.slice(0, 8)}@${password.slice(8)}@git.example.com/r.git`,
      `git clone https://${marker}@git.example.com/r.git`,
    ],
    ["percent-encoded password", `redis://:${password}%40x%3A@cache:6379`, `redis://:${marker}@cache:6379`],
    [
      "a placeholder is no password",
      "redis://:${REDIS_PASSWORD}@cache:6379",
      "redis://:${REDIS_PASSWORD}@cache:6379",
    ],
  ]);
});

describe(".netrc", () => {
  const marker = "[REDACTED:netrc-password]";
  expectRows([
    [
      "one line",
      `machine api.example.com login deploy password ${password}`,
      `machine api.example.com login deploy password ${marker}`,
    ],
    [
      "one token per line, indented",
      `machine git.example.com\n  login ci\n  password ${password}\n`,
      `machine git.example.com\n  login ci\n  password ${marker}\n`,
    ],
    [
      "password before login",
      `machine ftp.example.org password ${password} login anonymous`,
      `machine ftp.example.org password ${marker} login anonymous`,
    ],
    [
      "account is a second password",
      `machine ftp.example.org login u account ${otherPassword} password ${password}`,
      `machine ftp.example.org login u account ${marker} password ${marker}`,
    ],
    [
      "default entry",
      `default login anonymous password ${password}`,
      `default login anonymous password ${marker}`,
    ],
    [
      "curl's quoted value",
      `machine h.example.com login u password "${password} with spaces"`,
      `machine h.example.com login u password "${marker}"`,
    ],
    [
      "written by echo",
      `echo "machine github.com login x password ${password}" >> ~/.netrc`,
      `echo "machine github.com login x password ${marker}" >> ~/.netrc`,
    ],
    [
      "inside a JSON string",
      JSON.stringify({ netrc: `machine h.example.com\nlogin u\npassword ${password}\n` }),
      JSON.stringify({ netrc: `machine h.example.com\nlogin u\npassword ${marker}\n` }),
    ],
    ["after login, without machine", `login bob password ${password}`, `login bob password ${marker}`],
    [
      "two entries",
      `machine a.example.com login u password ${password}\nmachine b.example.com login v password ${otherPassword}`,
      `machine a.example.com login u password ${marker}\nmachine b.example.com login v password ${marker}`,
    ],
  ]);
});

describe("Twilio", () => {
  const token = random(HEX, 32);
  const accountSid = `AC${random(HEX, 32)}`;
  const apiKeySid = `SK${random(HEX, 32)}`;
  const apiKeySecret = random(BASE62, 32);
  expectRows([
    [
      "Dockerfile ENV",
      `ENV TWILIO_AUTH_TOKEN ${token}`,
      "ENV TWILIO_AUTH_TOKEN [REDACTED:twilio-auth-token]",
    ],
    [
      "Windows setx",
      `setx TWILIO_AUTH_TOKEN "${token}"`,
      'setx TWILIO_AUTH_TOKEN "[REDACTED:twilio-auth-token]"',
    ],
    [
      "fish set -x",
      `set -x TWILIO_AUTH_TOKEN ${token}`,
      "set -x TWILIO_AUTH_TOKEN [REDACTED:twilio-auth-token]",
    ],
    ["env assignment", `TWILIO_AUTH_TOKEN=${token}`, "TWILIO_AUTH_TOKEN=[REDACTED:secret-assignment]"],
    ["yaml auth_token", `auth_token: ${token}`, "auth_token: [REDACTED:secret-assignment]"],
    [
      "camelCase in code",
      `const authToken = '${token}';`,
      "const authToken = '[REDACTED:secret-assignment]';",
    ],
    [
      "SDK constructor after the account SID",
      `Client("${accountSid}", "${token}")`,
      'Client("[REDACTED:twilio-key]", "[REDACTED:twilio-auth-token]")',
    ],
    [
      "constructor over lines",
      `twilio(\n  "${accountSid}",\n  "${token}"\n)`,
      'twilio(\n  "[REDACTED:twilio-key]",\n  "[REDACTED:twilio-auth-token]"\n)',
    ],
    [
      "curl -u SID:TOKEN",
      `curl -u ${accountSid}:${token} https://api.twilio.com/2010-04-01/Accounts.json`,
      "curl -u [REDACTED:twilio-key]:[REDACTED:twilio-auth-token] https://api.twilio.com/2010-04-01/Accounts.json",
    ],
    [
      "API key secret after its SK SID",
      `Client("${apiKeySid}", "${apiKeySecret}", accountSid)`,
      'Client("[REDACTED:twilio-key]", "[REDACTED:twilio-auth-token]", accountSid)',
    ],
    ["API key SID alone", `key ${apiKeySid}`, "key [REDACTED:twilio-key]"],
  ]);
});

describe("user:password flags", () => {
  const marker = "[REDACTED:basic-auth-password]";
  expectRows([
    [
      "curl -u",
      `curl -u admin:${otherPassword} https://example.com/api`,
      `curl -u admin:${marker} https://example.com/api`,
    ],
    [
      "curl -u glued",
      `curl -uadmin:${otherPassword} https://example.com`,
      `curl -uadmin:${marker} https://example.com`,
    ],
    [
      "wget --user=",
      `wget --user=admin:${otherPassword} ftp://example.com/f`,
      `wget --user=admin:${marker} ftp://example.com/f`,
    ],
    [
      "curl --proxy-user",
      `curl --proxy-user ops:${otherPassword} -x proxy:3128 https://x.example`,
      `curl --proxy-user ops:${marker} -x proxy:3128 https://x.example`,
    ],
    ["uid:gid is no password", "docker run -u 1000:1000 node:20", "docker run -u 1000:1000 node:20"],
  ]);
});

describe("secrets a CI log declares", () => {
  const marker = "[REDACTED:declared-secret]";
  expectRows([
    [
      "Azure Pipelines secret variable",
      `##vso[task.setvariable variable=deployKey;issecret=true]${password}`,
      `##vso[task.setvariable variable=deployKey;issecret=true]${marker}`,
    ],
    [
      "Azure Pipelines setsecret, to the end of the line",
      `##vso[task.setsecret]${password} and the rest of the line\nnext line`,
      `##vso[task.setsecret]${marker}\nnext line`,
    ],
    ["GitHub Actions add-mask", `echo "::add-mask::${password}"`, `echo "::add-mask::${marker}"`],
    [
      "add-mask inside a JSON string",
      JSON.stringify({ line: `::add-mask::${password}`, next: "kept" }),
      JSON.stringify({ line: `::add-mask::${marker}`, next: "kept" }),
    ],
    ["a placeholder is no value", 'echo "::add-mask::$TOKEN"', 'echo "::add-mask::$TOKEN"'],
  ]);
});

describe("Azure DevOps", () => {
  const pat = azureDevOpsPat(random);
  const legacy = `${random(BASE32_LOWER, 51)}5`;
  const basic = Buffer.from(`:${legacy}`).toString("base64");
  const marker = "[REDACTED:azure-devops-pat]";
  expectRows([
    ["current format on its own", `pushed with ${pat}`, `pushed with ${marker}`],
    ["current format in JSON", `{"value":"${pat}"}`, `{"value":"${marker}"}`],
    [
      "current format in a clone URL",
      `git clone https://build:${pat}@dev.azure.com/org/p/_git/r`,
      "git clone https://[REDACTED:url-credentials]@dev.azure.com/org/p/_git/r",
    ],
    [
      "legacy, named AZURE_DEVOPS_EXT_PAT",
      `export AZURE_DEVOPS_EXT_PAT=${legacy}`,
      "export AZURE_DEVOPS_EXT_PAT=[REDACTED:secret-assignment]",
    ],
    [
      "legacy, named GITHUB_PAT style",
      `MY_PAT: "${random(BASE62, 30)}"`,
      'MY_PAT: "[REDACTED:secret-assignment]"',
    ],
    [
      "legacy, System.AccessToken",
      `System.AccessToken: ${legacy}`,
      "System.AccessToken: [REDACTED:secret-assignment]",
    ],
    [
      "legacy, piped to az devops login",
      `echo ${legacy} | az devops login --organization https://dev.azure.com/org`,
      `echo ${marker} | az devops login --organization https://dev.azure.com/org`,
    ],
    [
      "legacy, curl basic auth to dev.azure.com",
      `curl -u :${legacy} https://dev.azure.com/org/_apis/projects`,
      `curl -u :${marker} https://dev.azure.com/org/_apis/projects`,
    ],
    [
      "basic-auth header to dev.azure.com",
      `curl -H "Authorization: Basic ${basic}" https://dev.azure.com/org/_apis`,
      'curl -H "Authorization: Basic [REDACTED:authorization-header]" https://dev.azure.com/org/_apis',
    ],
    [
      "legacy, named in prose",
      `the ADO PAT ${legacy} expires Friday`,
      `the ADO PAT ${marker} expires Friday`,
    ],
  ]);
});
