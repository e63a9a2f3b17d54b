/**
 * The forms in which a secret the process holds can show up in text: as is, base64 (alone, or
 * inside a longer base64 blob such as an HTTP Basic header of `x-access-token:TOKEN`), URL- and
 * JSON-encoded, and, for a PEM key, each body line on its own (a key printed by `cat` is wrapped).
 */

/** Shorter values would redact ordinary words; the pattern rules still cover short formatted keys. */
export const MIN_KNOWN_SECRET_LENGTH = 6;
/** A base64 or PEM fragment shorter than this could occur by chance. */
const MIN_FRAGMENT_LENGTH = 12;

/**
 * base64 of `value` when it sits at byte offset 0, 1 or 2 of a longer encoded buffer: only the
 * characters determined by the value's bytes alone, so the secret is found inside any blob.
 */
function base64Alignments(bytes: Buffer): string[] {
  const variants: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const stable = encoded.slice(first, last);
    if (stable.length >= MIN_FRAGMENT_LENGTH) {
      variants.push(stable, stable.replace(/\+/g, "-").replace(/\//g, "_"));
    }
  }
  return variants;
}

function pemBodyLines(value: string): string[] {
  if (!value.includes("-----BEGIN")) return [];
  return value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_FRAGMENT_LENGTH && /^[A-Za-z0-9+/=]+$/.test(line));
}

export function knownSecretVariants(value: string): string[] {
  if (value.length < MIN_KNOWN_SECRET_LENGTH) return [];
  const bytes = Buffer.from(value, "utf8");
  const variants = new Set<string>([
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    bytes.toString("base64"),
    bytes.toString("base64url"),
    Buffer.from(`x-access-token:${value}`, "utf8").toString("base64"),
    ...base64Alignments(bytes),
    ...pemBodyLines(value),
  ]);
  const body = pemBodyLines(value).join("");
  if (body.length > 0) variants.add(body);
  return [...variants].filter((variant) => variant.length >= MIN_KNOWN_SECRET_LENGTH);
}
