import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { forEachLineBreak, LINE_BREAK } from "../../../src/core/safety/join-wrapped-lines.js";
import { BASE62, createRandom } from "./secret-corpus.js";

const random = createRandom(777);
/** A held value with every kind of character an encoder treats differently. */
const held = `Held+Key/${random(BASE62, 12)}=?&<"q">\\ é€😀 ${random(BASE62, 6)}`;
const redactor = createRedactor({ secrets: [held] });

const utf8 = Buffer.from(held, "utf8");

/** Percent-encodes every character but letters and digits, as some encoders do. */
function percentEncodeAll(value: string): string {
  return Array.from(value, (character) =>
    /[A-Za-z0-9]/.test(character)
      ? character
      : [...Buffer.from(character)]
          .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
          .join(""),
  ).join("");
}

/** JSON with every non-ASCII character as \uXXXX, as Python's json.dumps writes by default. */
function jsonAsciiOnly(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(
      /[\u0080-\uffff]/g,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
}

/** The characters of base64(prefix + value + suffix) that only the value's bytes decide. */
function embeddedBase64(
  value: Buffer,
  prefixLength: number,
  alphabet: "base64" | "base64url",
): { blob: string; stable: string } {
  const blob = Buffer.concat([
    Buffer.alloc(prefixLength, 0x41),
    value,
    Buffer.from("trailing bytes"),
  ]).toString(alphabet);
  const stable = blob.slice(
    Math.ceil((prefixLength * 8) / 6),
    Math.floor(((prefixLength + value.length) * 8) / 6),
  );
  return { blob, stable };
}

describe("held secrets: every encoding of the value", () => {
  const forms: Array<[string, string]> = [
    ["as is", held],
    ["base64, padded", utf8.toString("base64")],
    ["base64, unpadded", utf8.toString("base64").replace(/=+$/, "")],
    ["base64url, unpadded", utf8.toString("base64url")],
    [
      "base64url, padded",
      `${utf8.toString("base64url")}${"=".repeat((4 - (utf8.toString("base64url").length % 4)) % 4)}`,
    ],
    ["base64 of UTF-16LE (PowerShell)", Buffer.from(held, "utf16le").toString("base64")],
    ["hex, lower case", utf8.toString("hex")],
    ["hex, upper case", utf8.toString("hex").toUpperCase()],
    ["encodeURIComponent", encodeURIComponent(held)],
    ["encodeURI (reserved characters left as they are)", encodeURI(held)],
    [
      "percent-encoding with lower-case hex",
      encodeURIComponent(held).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    ],
    ["Python quote(safe='/')", encodeURIComponent(held).replace(/%2F/g, "/")],
    ["form encoding, + for space", encodeURIComponent(held).replace(/%20/g, "+")],
    ["percent-encoded twice", encodeURIComponent(encodeURIComponent(held))],
    ["every character but letters and digits percent-encoded", percentEncodeAll(held)],
    ["JSON.stringify", JSON.stringify(held).slice(1, -1)],
    ["JSON with \\/ (PHP)", JSON.stringify(held).slice(1, -1).replace(/\//g, "\\/")],
    ["JSON with \\uXXXX for non-ASCII (Python)", jsonAsciiOnly(held)],
    [
      "JSON with HTML characters escaped (Go)",
      JSON.stringify(held)
        .slice(1, -1)
        .replace(/[<>&]/g, (character) => `\\u00${character.charCodeAt(0).toString(16)}`),
    ],
    ["JSON inside JSON", JSON.stringify(JSON.stringify(held)).slice(3, -3)],
    ["shell backslash escapes", held.replace(/[\\"$&?<> ]/g, (character) => `\\${character}`)],
  ];

  it.each(forms)("%s", (_name, form) => {
    expect(redactor.redact(`value=<${form}>`)).toBe("value=<[REDACTED:known-secret]>");
  });

  it.each([0, 1, 2, 5])("base64 and base64url inside a longer blob, %i bytes in", (prefixLength) => {
    for (const alphabet of ["base64", "base64url"] as const) {
      const { blob, stable } = embeddedBase64(utf8, prefixLength, alphabet);
      const redacted = redactor.redact(`Authorization: Basic ${blob}`);
      expect(redacted).toContain("[REDACTED:");
      expect(redacted).not.toContain(stable);
    }
  });

  it("hex inside a longer hex dump", () => {
    const dump = `00ff${utf8.toString("hex")}deadbeef`;
    expect(redactor.redact(dump)).toBe("00ff[REDACTED:known-secret]deadbeef");
  });
});

/** Replaces every marker with a character no secret here contains, so no form can straddle one. */
function withoutMarkers(text: string): string {
  return text.replace(/\[REDACTED:[a-z0-9-]+\]/g, "\u0000");
}

/** Which encodings the property covers, each as (secret, choice) → text. */
type Encode = (secret: string, choose: (options: number) => number) => string;

const ENCODINGS: Array<[string, Encode]> = [
  ["raw", (secret) => secret],
  ["base64", (secret) => Buffer.from(secret).toString("base64")],
  ["base64 unpadded", (secret) => Buffer.from(secret).toString("base64").replace(/=+$/, "")],
  ["base64url", (secret) => Buffer.from(secret).toString("base64url")],
  ["hex", (secret) => Buffer.from(secret).toString("hex")],
  ["HEX", (secret) => Buffer.from(secret).toString("hex").toUpperCase()],
  [
    "percent-encoding of any subset, either hex case",
    (secret, choose) =>
      Array.from(secret, (character) => {
        if (/[A-Za-z0-9]/.test(character)) return character;
        const encoded = encodeURIComponent(character);
        const form = choose(3);
        if (form === 0 || encoded === character) return character;
        return form === 1 ? encoded.toUpperCase() : encoded.toLowerCase();
      }).join(""),
  ],
  ["JSON", (secret) => JSON.stringify(secret).slice(1, -1)],
  ["JSON, ASCII only", (secret) => jsonAsciiOnly(secret)],
];

describe("held secrets: property", () => {
  // Printable text with the characters encoders treat specially, and some beyond ASCII.
  const secretCharacter = fc.constantFrom(
    ...("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~é€😀".match(
      /./gu,
    ) ?? []),
  );
  const secretArbitrary = fc
    .array(secretCharacter, { minLength: 10, maxLength: 40 })
    .map((characters) => characters.join(""))
    .filter((secret) => secret.replace(/\s/g, "").length >= 10);
  const surroundings = fc.string({ maxLength: 30 }).map((text) => text.replaceAll("\u0000", ""));

  it("removes every encoding of a held secret, whatever surrounds it", () => {
    fc.assert(
      fc.property(
        secretArbitrary,
        surroundings,
        surroundings,
        fc.integer({ min: 0, max: ENCODINGS.length - 1 }),
        fc.integer(),
        (secret, before, after, which, seed) => {
          const [, encode] = ENCODINGS[which] ?? ENCODINGS[0]!;
          const pick = createRandom(seed);
          const form = encode(secret, (options) => Number(pick("0123456789".slice(0, options), 1)));
          const redacted = createRedactor({ secrets: [secret] }).redact(`${before}${form}${after}`);
          expect(withoutMarkers(redacted)).not.toContain(form);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("removes the held bytes' base64 at any alignment inside a longer blob", () => {
    fc.assert(
      fc.property(
        secretArbitrary,
        fc.uint8Array({ maxLength: 20 }),
        fc.uint8Array({ maxLength: 20 }),
        fc.constantFrom("base64" as const, "base64url" as const),
        (secret, prefix, suffix, alphabet) => {
          const bytes = Buffer.from(secret);
          const blob = Buffer.concat([prefix, bytes, suffix]).toString(alphabet);
          const stable = blob.slice(
            Math.ceil((prefix.length * 8) / 6),
            Math.floor(((prefix.length + bytes.length) * 8) / 6),
          );
          const redacted = createRedactor({ secrets: [secret] }).redact(`data: ${blob}`);
          expect(withoutMarkers(redacted)).not.toContain(stable);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("removes a held secret wrapped at any column by any kind of line break", () => {
    const tokenCharacters = fc.constantFrom(...`${BASE62}-_./+=:@`.split(""));
    fc.assert(
      fc.property(
        fc.array(tokenCharacters, { minLength: 12, maxLength: 60 }).map((characters) => characters.join("")),
        fc.integer({ min: 1, max: 59 }),
        fc.constantFrom("\n", "\r\n", "\r", "\n    ", "\\n", "\\r\\n  "),
        surroundings,
        (secret, column, lineBreak, before) => {
          const at = Math.min(column, secret.length - 1);
          const wrapped = `${secret.slice(0, at)}${lineBreak}${secret.slice(at)}`;
          const redacted = withoutMarkers(
            createRedactor({ secrets: [secret] }).redact(`${before} ${wrapped} end`),
          );
          expect(redacted).not.toContain(`${secret.slice(0, at)}${lineBreak}`);
          expect(redacted).not.toContain(`${lineBreak}${secret.slice(at)}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("forEachLineBreak", () => {
  it("finds exactly the breaks LINE_BREAK matches", () => {
    const pieces = fc.constantFrom(
      "\n",
      "\r",
      "\r\n",
      "\\",
      "\\n",
      "\\\\n",
      "\\r",
      "n",
      "r",
      " ",
      "\t",
      "a",
      "b",
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        const found: Array<[number, number]> = [];
        forEachLineBreak(text, (start, end) => found.push([start, end]));
        const expected = [...text.matchAll(new RegExp(LINE_BREAK.source, "g"))].map(
          (match): [number, number] => [match.index, match.index + match[0].length],
        );
        expect(found).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
