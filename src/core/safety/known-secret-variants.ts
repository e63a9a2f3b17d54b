/**
 * The byte-level encodings in which a secret the process holds can show up in text: as is,
 * base64 (standard and URL-safe, padded and not, alone or inside a longer blob such as an HTTP
 * Basic header of `x-access-token:TOKEN` or `:PAT`), hex in either case, and, for a PEM key, each
 * body line on its own (a key printed by `cat` is wrapped). Character-level escapes (percent,
 * JSON, backslash) of every variant are matched by encoded-secret-pattern.ts, and line wraps by
 * join-wrapped-lines.ts, so neither is spelled out here.
 */

/** Shorter values would redact ordinary words; the pattern rules still cover short formatted keys. */
export const MIN_KNOWN_SECRET_LENGTH = 6;
/** A base64 or PEM fragment shorter than this could occur by chance. */
export const MIN_FRAGMENT_LENGTH = 12;
/**
 * Hex and UTF-16 forms are for tokens and passwords (a PowerShell-built Basic header, a hex
 * dump of a request). For a PEM key they would add kilobytes of alternatives, enough to push
 * V8 off its fast path for the whole pattern (25 times slower), for forms nobody prints a key in.
 */
const EXTRA_ENCODINGS_MAX_LENGTH = 512;

type Base64Alphabet = "base64" | "base64url";

function withPadding(encoded: string): string {
  return encoded + "=".repeat((4 - (encoded.length % 4)) % 4);
}

function fullBase64(bytes: Buffer): string[] {
  const standard = bytes.toString("base64");
  const urlSafe = bytes.toString("base64url");
  return [standard, standard.replace(/=+$/, ""), urlSafe, withPadding(urlSafe)];
}

/**
 * base64 of `bytes` when they sit at byte offset 0, 1 or 2 of a longer encoded buffer: only the
 * characters determined by these bytes alone, so the secret is found inside any blob.
 */
function base64Alignments(bytes: Buffer, alphabet: Base64Alphabet): string[] {
  const variants: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const stable = encoded.slice(first, last);
    if (stable.length >= MIN_FRAGMENT_LENGTH) variants.push(stable);
  }
  return variants;
}

/** Every byte is two hex digits, so a secret inside a longer hex dump is a plain substring. */
function hexForms(bytes: Buffer): string[] {
  const lower = bytes.toString("hex");
  return [lower, lower.toUpperCase()];
}

function pemBodyLines(value: string): string[] {
  if (!value.includes("-----BEGIN")) return [];
  return value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_FRAGMENT_LENGTH && /^[A-Za-z0-9+/=]+$/.test(line));
}

/** Whether a value has enough substance to redact: whitespace and line breaks do not count. */
function isLongEnough(value: string): boolean {
  return value.replace(/\s/g, "").length >= MIN_KNOWN_SECRET_LENGTH;
}

export function knownSecretVariants(value: string): string[] {
  if (!isLongEnough(value)) return [];
  const utf8 = Buffer.from(value, "utf8");
  const hasExtraEncodings = value.length <= EXTRA_ENCODINGS_MAX_LENGTH;
  // PowerShell's [Text.Encoding]::Unicode is UTF-16LE: -EncodedCommand and Basic headers built
  // that way carry the secret as base64 of UTF-16 code units.
  const byteForms = hasExtraEncodings ? [utf8, Buffer.from(value, "utf16le")] : [utf8];
  const variants = new Set<string>([value, ...(hasExtraEncodings ? hexForms(utf8) : [])]);
  for (const bytes of byteForms) {
    for (const encoded of fullBase64(bytes)) variants.add(encoded);
    for (const encoded of base64Alignments(bytes, "base64")) variants.add(encoded);
    for (const encoded of base64Alignments(bytes, "base64url")) variants.add(encoded);
  }
  variants.add(Buffer.from(`x-access-token:${value}`, "utf8").toString("base64"));
  const lines = pemBodyLines(value);
  for (const line of lines) variants.add(line);
  if (lines.length > 0) variants.add(lines.join(""));
  return [...variants].filter(isLongEnough);
}
