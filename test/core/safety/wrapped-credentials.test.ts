import { describe, expect, it } from "@jest/globals";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { BASE62, buildCredentialCorpus, createRandom, wrapLines } from "./secret-corpus.js";

/**
 * Credentials broken across lines by a terminal, a log wrapper, base64's 76 columns or a JSON
 * string's escapes. Rows name the exact output, so a join that stops (or swallows the next line)
 * fails its row.
 */
type Row = readonly [name: string, input: string, expected: string];

const random = createRandom(4343);
const redactor = createRedactor();

function expectRows(rows: readonly Row[]): void {
  it.each(rows)("%s", (_name, input, expected) => {
    expect(redactor.redact(input)).toBe(expected);
  });
}

/** Every 6-character piece of `secret`'s key material still present in `text`. */
function leakedPieces(text: string, secret: string): string[] {
  const material = secret.replace(/-----(?:BEGIN|END)[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const pieces: string[] = [];
  for (let start = 0; start + 6 <= material.length; start += 1) {
    const piece = material.slice(start, start + 6);
    if (text.includes(piece)) pieces.push(piece);
  }
  return pieces;
}

describe("keys wrapped across lines", () => {
  const pem = buildCredentialCorpus().find((sample) => sample.name === "rsa private key")?.secret ?? "";
  const halfPem = pem.slice(0, Math.floor(pem.length / 2));

  it.each([
    ["JSON string with \\r\\n escapes", JSON.stringify({ key: pem.replace(/\n/g, "\r\n"), keep: "me" })],
    ["JSON inside JSON, END cut off", JSON.stringify(JSON.stringify({ key: pem })).slice(0, 600)],
    [
      "YAML block, indented, CRLF, END cut off",
      `tls.key: |\r\n    ${halfPem.split("\n").join("\r\n    ")}\r\n`,
    ],
    [
      "flattened onto one line with spaces, END cut off",
      `PRIVATE_KEY flattened: ${halfPem.split("\n").join(" ")}`,
    ],
  ])("PEM key: %s", (_name, text) => {
    expect(leakedPieces(redactor.redact(text), pem)).toEqual([]);
  });

  it("keeps what follows a cut key", () => {
    const flattened = `${halfPem.split("\n").join(" ")} and then the log goes on`;
    expect(redactor.redact(flattened)).toBe("[REDACTED:private-key] and then the log goes on");
  });

  const projectKey = `sk-proj-${random(`${BASE62}-_`, 156)}`;
  const anthropicKey = `sk-ant-api03-${random(BASE62, 93)}AA`;
  const fineGrained = `github_pat_${random(BASE62, 22)}_${random(BASE62, 59)}`;
  expectRows([
    [
      "OpenAI project key wrapped by an 80-column terminal",
      wrapLines(`$ export OPENAI_API_KEY=${projectKey}`, 80),
      "$ export OPENAI_API_KEY=[REDACTED:openai-api-key]",
    ],
    [
      "Anthropic key wrapped by a log wrapper that indents continuations",
      `2024-05-01T10:00:00Z INFO key ${anthropicKey}`.replace(/(.{80})/g, "$1\n    "),
      "2024-05-01T10:00:00Z INFO key [REDACTED:anthropic-api-key]",
    ],
    [
      "fine-grained GitHub token wrapped at 64 columns",
      wrapLines(`GH_TOKEN value: ${fineGrained}`, 64),
      "GH_TOKEN value: [REDACTED:github-fine-grained-token]",
    ],
    [
      "a complete token at the end of a long line keeps the next line",
      `${"x".repeat(70)} ghp_${random(BASE62, 36)}\ntotal 48`,
      `${"x".repeat(70)} [REDACTED:github-token]\ntotal 48`,
    ],
  ]);
});

describe("held secrets split across lines", () => {
  const held = random(BASE62, 64);
  const holding = createRedactor({ secrets: [held] });

  it.each([["\n"], ["\r\n"], ["\r\n      "], ["\\n"], ["\\\\n"]])(
    "finds a held secret split by %j",
    (separator) => {
      for (const column of [1, 2, 5, 31, 61, 62, 63]) {
        const text = `key: ${held.slice(0, column)}${separator}${held.slice(column)} # end`;
        expect(holding.redact(text)).toBe("key: [REDACTED:known-secret] # end");
      }
    },
  );

  it("finds its base64 inside a blob wrapped at 76 columns, as the base64 tool prints it", () => {
    const json = `{"auths":{"registry.example.com":{"auth":"${held}"}},"note":"padding"}`;
    const blob = Buffer.from(json).toString("base64");
    const redacted = holding.redact(wrapLines(blob, 76));
    // The characters of the blob that encode the held bytes alone.
    const offset = json.indexOf(held);
    const stable = blob.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + held.length) * 8) / 6));
    expect(redacted).toContain("[REDACTED:known-secret]");
    for (let start = 0; start + 12 <= stable.length; start += 4) {
      expect(redacted.replace(/\n/g, "")).not.toContain(stable.slice(start, start + 12));
    }
  });

  it("does not join two unrelated line ends into a short held value", () => {
    const short = createRedactor({ secrets: ["abc123"] });
    expect(short.redact("abc\n123")).toBe("abc\n123");
    expect(short.redact("abc123")).toBe("[REDACTED:known-secret]");
  });
});
