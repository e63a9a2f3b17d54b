import { describe, expect, it } from "@jest/globals";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { cleanGitHubText } from "../../../src/core/safety/clean-github-text.js";
import { createFence } from "../../../src/core/safety/create-fence.js";
import { stripTerminalControls } from "../../../src/core/safety/strip-terminal-controls.js";
import { BASE62, buildCredentialCorpus, createRandom } from "./secret-corpus.js";

const random = createRandom(1234);

/** ~1 MB of what tools return: TypeScript source, JSON, log lines, a few real-looking secrets. */
function mixedText(): string {
  const code = Array.from(
    { length: 2500 },
    (_, index) =>
      `export async function handler${index}(request: Request, options: { token?: string }): Promise<Response> {\n` +
      `  const url = new URL("https://api.example.com/v1/items/${index}?page=2");\n` +
      `  if (!options.token) throw new Error("missing token for item ${index}");\n  return fetch(url, { headers: { accept: "application/json" } });\n}\n`,
  ).join("\n");
  const json = JSON.stringify(
    Array.from({ length: 2500 }, (_, index) => ({
      id: index,
      key: `k${index}`,
      name: `item ${index}`,
      token_count: index * 3,
      sha: "3f786850e387550fdab836ed7e6dc881de23001b",
      url: `https://example.com/${index}`,
    })),
  );
  const log = Array.from(
    { length: 2500 },
    (_, index) =>
      `2024-05-01T10:00:${index % 60}Z INFO GET /api/v1/items?page=${index} status=200 took=${index % 97}ms`,
  ).join("\n");
  const secrets = Array.from(
    { length: 20 },
    () => `token=ghp_${random(BASE62, 36)} key=sk-${random(BASE62, 48)}`,
  );
  let text = [code, json, log, secrets.join("\n")].join("\n");
  while (text.length < 1_000_000) text += `\n${log}`;
  return text.slice(0, 1_000_000);
}

function timeMs(action: () => void): number {
  const start = performance.now();
  action();
  return performance.now() - start;
}

/** CPU time of this process: unlike wall time, it does not grow when other jobs share the cores. */
function cpuMs(action: () => void): number {
  const start = process.cpuUsage();
  action();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

describe("redaction throughput and backtracking", () => {
  const redactor = createRedactor({
    secrets: [`model-${random(BASE62, 40)}`, `webhook-${random(BASE62, 20)}`],
  });
  // What the App holds in production: its private key, an installation token, a model key and a
  // webhook secret with characters that every encoder escapes.
  const privateKey =
    buildCredentialCorpus().find((sample) => sample.name === "rsa private key")?.secret ?? "";
  const deployment = createRedactor({
    secrets: [
      privateKey,
      `ghs_${random(BASE62, 36)}`,
      `sk-proj-${random(BASE62, 156)}`,
      `w/h+k=${random(BASE62, 20)}?&"é`,
    ],
  });

  it("redacts a 1 MB mixed text fast enough to run on every tool result", () => {
    const text = mixedText();
    redactor.redact(text);
    const runs = 5;
    const elapsed = cpuMs(() => {
      for (let run = 0; run < runs; run += 1) redactor.redact(text);
    });
    const megabytesPerSecond = (runs * text.length) / 1_000_000 / (elapsed / 1000);
    process.stdout.write(`redact() throughput: ${megabytesPerSecond.toFixed(1)} MB/s of CPU time\n`);
    // The target is above 20 MB/s; the bound leaves room for slower machines.
    // A floor that only catches super-linear behaviour; the speed itself is measured by `npm run bench`.
    expect(megabytesPerSecond).toBeGreaterThan(2);
    expect(redactor.redact(text)).not.toMatch(/ghp_[A-Za-z0-9]{36}/);
  });

  it("stays fast when it holds a deployment's secrets, private key included", () => {
    const text = mixedText();
    deployment.redact(text);
    const runs = 5;
    const elapsed = cpuMs(() => {
      for (let run = 0; run < runs; run += 1) deployment.redact(text);
    });
    const megabytesPerSecond = (runs * text.length) / 1_000_000 / (elapsed / 1000);
    process.stdout.write(
      `redact() throughput holding a private key: ${megabytesPerSecond.toFixed(1)} MB/s of CPU time\n`,
    );
    expect(megabytesPerSecond).toBeGreaterThan(2);
  });

  const pathological: Array<[string, string]> = [
    ["one long word", "a".repeat(200_000)],
    ["repeated prefixes", "ghp_".repeat(50_000)],
    ["repeated sk- dashes", "sk-".repeat(66_000)],
    ["unterminated PEM headers", "-----BEGIN RSA PRIVATE KEY-----\n".repeat(6_000)],
    ["assignment chains", "token=".repeat(33_000)],
    ["unclosed quoted secrets", 'password: "'.repeat(18_000)],
    ["URL without host", `https://${"a:".repeat(100_000)}`],
    ["JWT-like dots", `eyJ${"a".repeat(100_000)}.eyJ${"b".repeat(99_000)}`],
    ["backslash escapes", "\\n".repeat(100_000)],
    ["authorization spam", "Authorization: Bearer ".repeat(9_000)],
    ["long identifier then colon", `${"secret_".repeat(28_000)}: x`],
    ["netrc keywords", "machine a login b password ".repeat(7_500)],
    ["netrc entries", "machine a.example.com login b password c\n".repeat(5_000)],
    ["URLs with an empty user", "redis://:".repeat(22_000)],
    ["Twilio SIDs in a list", `AC${"0".repeat(32)}, `.repeat(5_500)],
    ["AZDO signatures", "AZDOabcd ".repeat(22_000)],
    ["AZDO after long runs", `${"a".repeat(76)}AZDOabcd `.repeat(2_300)],
    ["PAT keywords", "pat ado azure ".repeat(14_000)],
    ["PAT keywords and base32 runs", `azure ${"abcdefgh".repeat(6)}xyz `.repeat(3_500)],
    ["percent escapes", "%2F".repeat(66_000)],
    ["backslash runs", "\\".repeat(200_000)],
    [
      "wrapped base64 lines",
      `${"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx"}\n`.repeat(2_800),
    ],
    ["add-mask markers", "::add-mask::".repeat(16_000)],
    ["setvariable without issecret", "##vso[task.setvariable variable=x;".repeat(6_000)],
    ["-u flags", "-u a:".repeat(40_000)],
    ["long lines of one token", `ghp_${"A".repeat(100)}\n`.repeat(1_900)],
  ];

  it.each(pathological)("redacts 200 KB of %s in well under a second", (_name, text) => {
    expect(text.length).toBeGreaterThanOrEqual(190_000);
    expect(timeMs(() => redactor.redact(text))).toBeLessThan(2_000);
    expect(timeMs(() => deployment.redact(text))).toBeLessThan(2_000);
  });

  it("cleans, fences and strips 200 KB of hostile markup in well under a second each", () => {
    const fence = createFence();
    const markers = "<<<\u200bUNTRUSTED <<<END ".repeat(9_000);
    expect(timeMs(() => fence.wrap(markers, "tool:x"))).toBeLessThan(2_000);
    expect(timeMs(() => cleanGitHubText("<!-- <div hidden> ![a](b) `".repeat(8_000)))).toBeLessThan(2_000);
    expect(timeMs(() => stripTerminalControls("\u001b[31m\u001b]8;;x\r".repeat(20_000)))).toBeLessThan(2_000);
  });
});
