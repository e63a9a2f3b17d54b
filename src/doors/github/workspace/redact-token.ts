import { basicAuthorizationHeader } from "./git-environment.js";

/**
 * Removes the token and the header built from it from git's output before it is logged or
 * posted. The door's redaction gate runs again on anything posted; this one makes the error
 * itself safe to hold.
 */
export function redactToken(text: string, token: string): string {
  if (token.length === 0) return text;
  const header = basicAuthorizationHeader(token);
  const encoded = header.slice(header.indexOf("basic ") + "basic ".length);
  return text
    .split(header)
    .join("[REDACTED]")
    .split(encoded)
    .join("[REDACTED]")
    .split(token)
    .join("[REDACTED]");
}

/** The message of a failure from git, with the token removed. */
export function describeGitFailure(error: unknown, token: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return redactToken(message.trim(), token);
}
