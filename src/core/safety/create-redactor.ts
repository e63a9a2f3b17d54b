import { CONTEXTUAL_SECRET_RULES, type ContextualSecretRule } from "./contextual-secret-rules.js";
import { createKnownSecretMatcher } from "./create-known-secret-matcher.js";
import { findAzureDevOpsPats } from "./find-azure-devops-pats.js";
import { findNetrcPasswords } from "./find-netrc-passwords.js";
import { findPrefixedTokens } from "./find-prefixed-tokens.js";
import { findPrivateKeys } from "./find-private-keys.js";
import { findSecretAssignments } from "./find-secret-assignments.js";
import { redactDeepWith } from "./redact-deep.js";
import { applyRanges, type SecretRange } from "./secret-range.js";

export { KNOWN_SECRET_RULE_ID } from "./create-known-secret-matcher.js";

export interface RedactorOptions {
  /** Exact values the process holds (model key, installation token, webhook secret, private key). */
  readonly secrets?: readonly string[];
  /**
   * Redact a credential prefix followed by a few token characters (`ghp_AbC1`), as left by a cut.
   * Default true.
   */
  readonly prefixFragments?: boolean;
}

export interface Redactor {
  /** Replaces every credential with `[REDACTED:<rule-id>]`. Synchronous: it runs on every tool result and log line. */
  redact(text: string): string;
  /** Also redact this exact value and its common encodings from now on. */
  addSecret(value: string): void;
  /** A copy of a JSON-like value with every string redacted and values under credential keys hidden. */
  redactDeep(value: unknown): unknown;
  /** Redacts first, then cuts to `maxChars`, so the cut can never reveal part of a key. */
  redactThenTruncate(text: string, maxChars: number): string;
  /** Where the credentials in `text` are; for tests and for reporting what was hidden. */
  findSecrets(text: string): SecretRange[];
}

const TRUNCATION_SUFFIX = "…[truncated]";

/**
 * The same strings pass the redactor again and again (trace keys and tool names on every event, a
 * tool's output once for the model and once for the trace): their results are remembered, a
 * bounded number at a time, and forgotten whenever a new secret is added.
 */
const REMEMBERED_RESULTS = 1024;
/** Longer texts are redacted every time: remembering them would hold too much memory. */
const REMEMBERED_MAX_LENGTH = 4096;

/** The span to replace: the `secret` group, else the `value` group without its quotes, else all. */
function secretSpan(match: RegExpExecArray): { start: number; end: number } {
  const indices = match.indices;
  const group = indices?.groups?.["secret"] ?? indices?.groups?.["value"];
  if (group === undefined) return { start: match.index, end: match.index + match[0].length };
  const [start, end] = group;
  const first = match.input[start];
  const isQuoted =
    end - start >= 2 && (first === '"' || first === "'" || first === "`") && match.input[end - 1] === first;
  return isQuoted ? { start: start + 1, end: end - 1 } : { start, end };
}

function findContextual(rule: ContextualSecretRule, text: string, ranges: SecretRange[]): void {
  const pattern = rule.pattern;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === 0) pattern.lastIndex += 1;
    if (rule.accept !== undefined && !rule.accept(match, text)) continue;
    const span = secretSpan(match);
    if (span.end > span.start) ranges.push({ ...span, ruleId: rule.id });
  }
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const includeFragments = options.prefixFragments ?? true;
  const known = createKnownSecretMatcher();
  const remembered = new Map<string, string>();

  function addSecret(value: string): void {
    if (known.add(value)) remembered.clear();
  }

  function findSecrets(text: string): SecretRange[] {
    const ranges: SecretRange[] = [
      ...known.find(text),
      ...findPrivateKeys(text),
      ...findPrefixedTokens(text, includeFragments),
      ...findSecretAssignments(text),
      ...findNetrcPasswords(text),
      ...findAzureDevOpsPats(text),
    ];
    for (const rule of CONTEXTUAL_SECRET_RULES) findContextual(rule, text, ranges);
    return ranges;
  }

  function redact(text: string): string {
    const previous = remembered.get(text);
    if (previous !== undefined) return previous;
    const redacted = applyRanges(text, findSecrets(text));
    if (text.length <= REMEMBERED_MAX_LENGTH) {
      if (remembered.size >= REMEMBERED_RESULTS) remembered.clear();
      remembered.set(text, redacted);
    }
    return redacted;
  }

  function redactThenTruncate(text: string, maxChars: number): string {
    const redacted = redact(text);
    if (redacted.length <= maxChars) return redacted;
    const keep = Math.max(0, maxChars - TRUNCATION_SUFFIX.length);
    return redacted.slice(0, keep) + TRUNCATION_SUFFIX.slice(0, maxChars - keep);
  }

  for (const secret of options.secrets ?? []) addSecret(secret);

  return {
    redact,
    addSecret,
    findSecrets,
    redactThenTruncate,
    redactDeep: (value) => redactDeepWith(value, redact),
  };
}
