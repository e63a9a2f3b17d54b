/**
 * Judgements shared by the redaction rules: does a name denote a credential, and does a value
 * look like one rather than code, prose or a placeholder. They err towards redacting: a hidden
 * harmless value costs a little context, a leaked key costs an incident.
 */

/** Words that, as a whole word of an identifier, mark the value as a credential. */
const SECRET_WORDS = new Set([
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "pass",
  "passphrase",
  // Personal access token, as in AZURE_DEVOPS_PAT, AZURE_DEVOPS_EXT_PAT, GITHUB_PAT.
  "pat",
  "credential",
  "credentials",
  "apikey",
  "auth",
  "authtoken",
  "accesstoken",
  "secretkey",
  "privatekey",
]);

/**
 * Credential words long enough to be recognised at the end of a word they are fused into, with no
 * separator or case change to split on: `PGPASSWORD`, `NPMTOKEN`, `dbpassword`, `clientsecret`.
 */
const FUSED_SECRET_SUFFIXES = [
  "password",
  "passwd",
  "passphrase",
  "token",
  "secret",
  "credential",
  "credentials",
  "apikey",
];

function endsWithSecretWord(word: string): boolean {
  return FUSED_SECRET_SUFFIXES.some((suffix) => word.length > suffix.length && word.endsWith(suffix));
}

/** "key" alone is too common ("key_id", "sort key"); with one of these before it, it is a credential. */
const KEY_QUALIFIERS = new Set([
  "api",
  "private",
  "access",
  "secret",
  "signing",
  "encryption",
  "session",
  "client",
  "master",
  "account",
  "shared",
  "license",
]);

/** A last word that says the value describes a credential instead of being one. */
const DESCRIPTOR_WORDS = new Set([
  "name",
  "names",
  "type",
  "url",
  "uri",
  "endpoint",
  "path",
  "file",
  "length",
  "count",
  "limit",
  "field",
  "id",
  "label",
  "header",
  "prefix",
  "expiry",
  "expires",
  "expiration",
  "ttl",
  "policy",
  "format",
  "mode",
  "env",
  "var",
  "min",
  "max",
  "usage",
  "used",
  "enabled",
  "required",
  "hint",
  "regex",
  "pattern",
  "placeholder",
  "kind",
  "source",
  "provider",
  "method",
  "strategy",
  "version",
]);

/** Splits `clientSecret`, `CLIENT_SECRET`, `client-secret`, `x.api.key` into lower-case words. */
export function splitIdentifierWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

// Names repeat (JSON keys, config fields): remember recent verdicts instead of re-splitting.
const nameVerdicts = new Map<string, boolean>();
const MAX_REMEMBERED_NAMES = 2048;

export function isSecretName(name: string): boolean {
  const remembered = nameVerdicts.get(name);
  if (remembered !== undefined) return remembered;
  const verdict = judgeName(name);
  if (nameVerdicts.size >= MAX_REMEMBERED_NAMES) nameVerdicts.clear();
  nameVerdicts.set(name, verdict);
  return verdict;
}

function judgeName(name: string): boolean {
  const words = splitIdentifierWords(name);
  const last = words[words.length - 1];
  if (last === undefined || DESCRIPTOR_WORDS.has(last)) return false;
  return words.some((word, index) => {
    if (SECRET_WORDS.has(word) || endsWithSecretWord(word)) return true;
    const previous = index > 0 ? words[index - 1] : undefined;
    return word === "key" && previous !== undefined && KEY_QUALIFIERS.has(previous);
  });
}

const PLACEHOLDER =
  /^(?:\$\{?[A-Za-z_][\w.]*\}?|\$\(.*\)|\{\{.*\}\}|<[^>]*>|%[A-Za-z_]+%|\*+|[xX]+|\.{3,}|…|null|nil|none|undefined|true|false|changeme|change_me|example|redacted|your[_-].*|\[REDACTED[^\]]*\].*)$/i;

/** `$TOKEN`, `${TOKEN}`, `<password>`, `changeme`, `***`, a redaction marker: stands for a value, is none. */
export function isPlaceholderValue(value: string): boolean {
  return PLACEHOLDER.test(value);
}

/** `kebab-case-words`, `snake_words`, `2024`, `Capitalised`: the shape of names and prose, not keys. */
export function looksLikeSlug(body: string): boolean {
  const segments = body.split(/[-_.]+/).filter((segment) => segment.length > 0);
  if (segments.length === 0) return true;
  return segments.every((segment) => /^(?:[a-z]+|[0-9]+|[A-Z][a-z]+|[A-Z]+)$/.test(segment));
}

function characterClassCount(value: string): number {
  let count = 0;
  if (/[a-z]/.test(value)) count += 1;
  if (/[A-Z]/.test(value)) count += 1;
  if (/[0-9]/.test(value)) count += 1;
  if (/[^A-Za-z0-9]/.test(value)) count += 1;
  return count;
}

/**
 * Whether the value assigned to a secret-looking name is plausibly the secret itself.
 * `quoted` values are string literals; unquoted ones may be code (`getToken`, `options.token`).
 */
export function isLikelySecretValue(value: string, quoted: boolean): boolean {
  if (value.length < 6 || value.length > 4096) return false;
  if (/\s/.test(value) || PLACEHOLDER.test(value)) return false;
  if (!quoted) {
    // Identifiers and member access are code, not credentials: `userInput`, `process.env.TOKEN`.
    if (/^[A-Za-z_$][A-Za-z_$]*$/.test(value)) return false;
    if (/^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::)[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  }
  const classes = characterClassCount(value);
  // Word lists such as `password_input` or `Read-Only` are names, whatever their length.
  if (classes >= 2) return !(looksLikeSlug(value) && !/[0-9]/.test(value));
  return value.length >= 16 && !/^[a-z]+(?:[-_][a-z]+)+$/.test(value);
}
