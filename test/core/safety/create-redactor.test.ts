import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { BASE62, buildCredentialCorpus, createRandom, HARMLESS_LOOK_ALIKES } from "./secret-corpus.js";

const corpus = buildCredentialCorpus();
const random = createRandom(7);

/** A piece of `secret` (`minimum` characters long) that is still present in `text`, or "". */
function longestLeak(text: string, secret: string, minimum = 6): string {
  // Armour lines and the public `github_pat_` prefix are not secret material.
  const material = secret
    .replace(/-----(?:BEGIN|END)[A-Z ]+-----/g, "")
    .replace(/^github_pat_/, "")
    .replace(/\s+/g, "");
  for (let start = 0; start + minimum <= material.length; start += 1) {
    const piece = material.slice(start, start + minimum);
    if (text.includes(piece)) return piece;
  }
  return "";
}

describe("createRedactor: credential corpus", () => {
  const redactor = createRedactor();

  it("has at least 40 synthetic credentials", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  it.each(corpus.map((sample) => [sample.name, sample] as const))("redacts %s", (_name, sample) => {
    const redacted = redactor.redact(sample.text);
    expect(redacted).toContain("[REDACTED:");
    expect(redacted).not.toContain(sample.secret);
    expect(longestLeak(redacted, sample.secret)).toBe("");
    expect(redacted.endsWith(" # end")).toBe(true);
  });

  it("redacts every credential when they all sit in one text", () => {
    const redacted = redactor.redact(corpus.map((sample) => sample.text).join("\n"));
    for (const sample of corpus) expect(redacted).not.toContain(sample.secret);
  });

  it("is idempotent: redacting redacted text changes nothing", () => {
    for (const sample of corpus) {
      const once = redactor.redact(sample.text);
      expect(redactor.redact(once)).toBe(once);
    }
  });

  it("redacts every corpus credential whatever text surrounds it", () => {
    const surroundings = fc.string({
      unit: fc.constantFrom(..." \n\t,;:=\"'()[]{}<>`|".split("")),
      maxLength: 3,
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...corpus),
        fc.lorem({ maxCount: 5 }),
        surroundings,
        surroundings,
        (sample, prose, left, right) => {
          const redacted = redactor.redact(`${prose} ${left}${sample.text}${right} ${prose}`);
          expect(longestLeak(redacted, sample.secret)).toBe("");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("names the rule and never the value", () => {
    const token = `ghp_${random(BASE62, 36)}`;
    expect(redactor.redact(`use ${token} now`)).toBe("use [REDACTED:github-token] now");
    expect(redactor.redact(`OPENAI_API_KEY=sk-proj-${random(BASE62, 60)}`)).toBe(
      "OPENAI_API_KEY=[REDACTED:openai-api-key]",
    );
    expect(redactor.redact(`git clone https://x-access-token:${random(BASE62, 30)}@github.com/o/r.git`)).toBe(
      "git clone https://[REDACTED:url-credentials]@github.com/o/r.git",
    );
  });
});

describe("createRedactor: harmless look-alikes", () => {
  const redactor = createRedactor();

  it("has at least 15 look-alikes", () => {
    expect(HARMLESS_LOOK_ALIKES.length).toBeGreaterThanOrEqual(15);
  });

  it.each(HARMLESS_LOOK_ALIKES.map((text) => [text]))("leaves alone: %s", (text) => {
    expect(redactor.redact(text)).toBe(text);
  });
});

describe("createRedactor: keys split across lines", () => {
  const redactor = createRedactor();
  const body = random(BASE62, 36);
  const token = `ghp_${body}`;

  it("joins a token wrapped by a real newline, with or without indentation", () => {
    for (const separator of ["\n", "\r\n", "\n    "]) {
      const text = `token: ghp_${body.slice(0, 20)}${separator}${body.slice(20)}\nnext line stays`;
      const redacted = redactor.redact(text);
      expect(longestLeak(redacted, token, 4)).toBe("");
      expect(redacted).toContain("next line stays");
    }
  });

  it("joins a token broken by an escaped \\n inside JSON", () => {
    const json = JSON.stringify({ output: `ghs_${body.slice(0, 10)}\n${body.slice(10)}` });
    const redacted = redactor.redact(json);
    expect(longestLeak(redacted, body, 4)).toBe("");
    expect(() => JSON.parse(redacted) as unknown).not.toThrow();
  });

  it("redacts a PEM key whose lines are JSON-escaped", () => {
    const pem = corpus.find((sample) => sample.name === "rsa private key")?.secret ?? "";
    const json = JSON.stringify({ private_key: pem, note: "keep me" });
    const redacted = redactor.redact(json);
    expect(longestLeak(redacted, pem)).toBe("");
    expect(JSON.parse(redacted)).toEqual({ private_key: "[REDACTED:private-key]", note: "keep me" });
  });

  it("does not swallow the next line after a complete token", () => {
    expect(redactor.redact(`${token}\ntotal 48`)).toBe("[REDACTED:github-token]\ntotal 48");
  });
});

describe("createRedactor: keys cut by truncation", () => {
  const redactor = createRedactor();
  const secretBody = random(BASE62, 36);
  const text = `the token is ghp_${secretBody} and more text follows here`;

  it("redactThenTruncate never reveals key characters, wherever the cut falls", () => {
    for (let maxChars = 1; maxChars < text.length + 5; maxChars += 1) {
      const cut = redactor.redactThenTruncate(text, maxChars);
      expect(cut.length).toBeLessThanOrEqual(maxChars);
      expect(longestLeak(cut, secretBody, 4)).toBe("");
    }
  });

  it("redacts a dangling prefix left by someone else's cut (4 or more token characters)", () => {
    for (let keep = 4; keep < 36; keep += 1) {
      const cutElsewhere = text.slice(0, text.indexOf("ghp_") + 4 + keep);
      const redacted = redactor.redact(cutElsewhere);
      expect(redacted).toMatch(/\[REDACTED:(?:prefix-fragment|github-token)\]$/);
    }
    expect(redactor.redact("cut here: sk-ant-api0")).toBe("cut here: [REDACTED:prefix-fragment]");
    expect(redactor.redact("cut here: xoxb-1234")).toBe("cut here: [REDACTED:prefix-fragment]");
  });

  it("redacts a private key whose END line was cut off, and only the key", () => {
    const pem = corpus.find((sample) => sample.name === "openssh private key")?.secret ?? "";
    const cut = pem.slice(0, Math.floor(pem.length / 2));
    const redacted = redactor.redact(`${cut}\n[… 900 characters omitted …]\nexit code 0`);
    expect(redacted).toBe("[REDACTED:private-key]\n[… 900 characters omitted …]\nexit code 0");
    const midLine = redactor.redact(`${pem.slice(0, 60)}`);
    expect(midLine).toBe("[REDACTED:private-key]");
  });

  it("finds prefixes glued to preceding text: distinctive ones always, weak ones only complete", () => {
    expect(redactor.redact(`0x3f2aghp_${random(BASE62, 36)} end`)).toBe("0x3f2a[REDACTED:github-token] end");
    expect(redactor.redact(`0x3f2aghp_AbC1`)).toBe("0x3f2a[REDACTED:prefix-fragment]");
    expect(redactor.redact(`wordnpm_${random(BASE62, 36)}`)).toBe("word[REDACTED:npm-token]");
    expect(redactor.redact("mask-Ab12 task-ask1")).toBe("mask-Ab12 task-ask1");
  });

  it("can switch fragments off", () => {
    expect(createRedactor({ prefixFragments: false }).redact("ghp_ABCD")).toBe("ghp_ABCD");
  });
});

describe("createRedactor: exact secrets the process holds", () => {
  const modelKey = `model-${random(BASE62, 30)}`;
  const webhookSecret = `whk-${random(BASE62, 12)}`;
  const pem = corpus.find((sample) => sample.name === "ec private key")?.secret ?? "";
  const redactor = createRedactor({ secrets: [modelKey] });
  redactor.addSecret(webhookSecret);
  redactor.addSecret(pem);

  it("redacts the value, its base64, base64url, URL and JSON encodings", () => {
    const forms = [
      modelKey,
      Buffer.from(modelKey).toString("base64"),
      Buffer.from(modelKey).toString("base64url"),
      encodeURIComponent(`${webhookSecret}/+&`).slice(0, webhookSecret.length),
      JSON.stringify(modelKey).slice(1, -1),
    ];
    for (const form of forms) {
      expect(redactor.redact(`value=<${form}>`)).toBe("value=<[REDACTED:known-secret]>");
    }
  });

  it("redacts the value inside a longer base64 blob at any byte alignment", () => {
    for (const prefix of ["", "a", "ab", "abc", "x-access-token:"]) {
      const blob = Buffer.from(`${prefix}${modelKey}:trailing`).toString("base64");
      const redacted = redactor.redact(`Authorization: Basic ${blob}`);
      expect(redacted).not.toContain(Buffer.from(modelKey).toString("base64").slice(4, 20));
      expect(redacted).toContain("[REDACTED:");
    }
  });

  it("redacts every body line of a held PEM key, even printed alone", () => {
    const lines = pem.split("\n").filter((line) => !line.startsWith("-----") && line.length >= 12);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(redactor.redact(`> ${line}`)).toBe("> [REDACTED:known-secret]");
  });

  it("ignores values too short to redact safely", () => {
    const shortRedactor = createRedactor({ secrets: ["abc"] });
    expect(shortRedactor.redact("abc abc")).toBe("abc abc");
  });
});

describe("createRedactor: redactDeep", () => {
  const redactor = createRedactor();

  it("redacts strings at any depth and hides values under credential keys", () => {
    const token = `ghs_${random(BASE62, 36)}`;
    const password = `${random(BASE62, 12)}9!`;
    const input = {
      attributes: { "tool_call.output": `pushed with ${token}`, count: 3, ok: true, none: null },
      list: [{ password }, `Bearer ${random(BASE62, 30)}`],
      headers: { authorization: `token ${random("0123456789abcdef", 40)}` },
      max_tokens: 4096,
      token_type: "bearer",
    };
    const output = redactor.redactDeep(input) as typeof input;
    expect(output.attributes["tool_call.output"]).toBe("pushed with [REDACTED:github-token]");
    expect(output.attributes.count).toBe(3);
    expect(output.list[0]).toEqual({ password: "[REDACTED:secret-assignment]" });
    expect(output.list[1]).toBe("Bearer [REDACTED:bearer-token]");
    expect(JSON.stringify(output)).not.toContain(token);
    expect(output.max_tokens).toBe(4096);
    expect(output.token_type).toBe("bearer");
    expect(input.attributes["tool_call.output"]).toContain(token);
  });

  it("survives cycles", () => {
    const node: Record<string, unknown> = { name: "a" };
    node["self"] = node;
    expect(redactor.redactDeep(node)).toEqual({ name: "a", self: "[circular]" });
  });
});

describe("remembered results", () => {
  it("a secret added after a text was redacted is hidden the next time that text passes", () => {
    const redactor = createRedactor();
    const text = "the deploy password is correct-horse-battery-staple, keep it";
    expect(redactor.redact(text)).toBe(text);
    redactor.addSecret("correct-horse-battery-staple");
    expect(redactor.redact(text)).not.toContain("correct-horse-battery-staple");
    expect(redactor.redact(text)).toContain("[REDACTED:known-secret]");
  });
});
