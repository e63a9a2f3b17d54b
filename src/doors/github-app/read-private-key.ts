import { createPrivateKey } from "node:crypto";

export type PrivateKeyResult =
  { readonly success: true; readonly value: string } | { readonly success: false; readonly error: string };

const WHERE_KEYS_ARE =
  "generate one on the app's settings page (Settings → Developer settings → GitHub Apps → Private keys)";
const BASE64 = /^[A-Za-z0-9+/=_-]+$/;

function decodeBase64(text: string): string | null {
  const compact = text.replace(/\s+/g, "");
  if (!BASE64.test(compact)) return null;
  const decoded = Buffer.from(
    compact,
    compact.includes("-") || compact.includes("_") ? "base64url" : "base64",
  );
  const pem = decoded.toString("utf8");
  return pem.includes("-----BEGIN") ? pem : null;
}

/**
 * The App's private key as GitHub generated it (a PEM), however it was passed: the PEM itself, the
 * PEM with `\n` escapes (a `.env` line), or the PEM in base64 (a secret store that keeps one line).
 * It must parse as a private key: a JWT signed with anything else fails at GitHub, much later.
 */
export function readPrivateKey(text: string, variable: "PRIVATE_KEY" | "PRIVATE_KEY_PATH"): PrivateKeyResult {
  const source = variable === "PRIVATE_KEY_PATH" ? "the file PRIVATE_KEY_PATH names" : "PRIVATE_KEY";
  const unquoted = text.trim().replace(/^(["'])([\s\S]*)\1$/, "$2");
  const pem = unquoted.includes("-----BEGIN") ? unquoted.replace(/\\n/g, "\n") : decodeBase64(unquoted);
  if (pem === null)
    return {
      success: false,
      error: `${variable}: ${source} is not a private key: expected the .pem file's text ("-----BEGIN RSA PRIVATE KEY-----" …) or that text in base64; ${WHERE_KEYS_ARE}`,
    };
  if (/-----BEGIN (RSA )?PUBLIC KEY-----/.test(pem))
    return {
      success: false,
      error: `${variable}: ${source} is a public key; the App signs with its private key: ${WHERE_KEYS_ARE}`,
    };
  try {
    createPrivateKey(pem);
  } catch (error) {
    // Node's crypto errors carry an OpenSSL code; checked by shape, as they may come from another realm.
    const reason =
      typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unreadable";
    return {
      success: false,
      error: `${variable}: ${source} looks like a PEM but is not a usable private key (${reason}); paste the whole .pem file, or ${WHERE_KEYS_ARE}`,
    };
  }
  return { success: true, value: pem.trim() + "\n" };
}
