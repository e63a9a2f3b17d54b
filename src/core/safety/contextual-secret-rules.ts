import { isLikelySecretValue } from "./secret-heuristics.js";

/**
 * Credentials recognised by their surroundings or by a shape that has no prefix. Each pattern is
 * global with indices (`d`); when it has a group named `secret`, only that group is replaced, so
 * `TOKEN=…` keeps its name and a URL keeps its host. Every quantifier is bounded and every
 * pattern starts at a fixed literal or a word boundary, so no input makes them backtrack far.
 */
export interface ContextualSecretRule {
  readonly id: string;
  readonly facts: string;
  readonly pattern: RegExp;
  /** Rejects a candidate that has the shape but not the substance of a credential. */
  readonly accept?: (match: RegExpExecArray, text: string) => boolean;
}

const isNotPlaceholder = (match: RegExpExecArray): boolean => {
  const secret = match.groups?.["secret"] ?? "";
  return !/^\$\{?[A-Za-z_]\w*\}?$/.test(secret) && !secret.startsWith("[REDACTED");
};

function unquote(value: string): { value: string; quoted: boolean } {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'" || first === "`") && value.endsWith(first)) {
    return { value: value.slice(1, -1), quoted: true };
  }
  return { value, quoted: false };
}

/** Assignments (`TOKEN=…`) are found by find-secret-assignments.ts, which is faster than a pattern. */
export const CONTEXTUAL_SECRET_RULES: readonly ContextualSecretRule[] = [
  {
    id: "jwt",
    facts: "JSON Web Tokens: base64url header `eyJ…` . base64url payload `eyJ…` . signature.",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,16384}\.[A-Za-z0-9_-]{0,4096}/dg,
  },
  {
    id: "github-token",
    facts: "Pre-2021 GitHub tokens are 40 hex, like a commit SHA, so only where they are used as a token.",
    pattern:
      /(?<![A-Za-z0-9])(?:token|bearer|x-access-token)\s{0,3}[:=]?\s{0,3}(?<secret>[0-9a-f]{40})(?![0-9A-Za-z])/dgi,
  },
  {
    id: "url-credentials",
    facts:
      "user:password@ in a URL (RFC 3986 userinfo), e.g. https://x-access-token:TOKEN@github.com; " +
      "anchored on the literal `://` (any scheme) because a scheme-first pattern is ten times slower. " +
      "The password may hold an unencoded `@`: URL parsers (WHATWG) end userinfo at the last `@` " +
      "before the path, and so does this pattern, so no tail of the password is left as the host.",
    pattern: /:\/\/(?<secret>[^\s/?#@:"'<>]{1,256}:[^\s/?#"'<>]{1,512})@/dg,
  },
  {
    id: "url-credentials",
    facts:
      "A password with no user, as Redis, AMQP and database clients accept: redis://:PASSWORD@host:6379/0. " +
      "Only the password is replaced, so the URL keeps its shape.",
    pattern: /:\/\/:(?<secret>[^\s/?#"'<>]{1,512})@/dg,
    accept: isNotPlaceholder,
  },
  {
    id: "url-credentials",
    facts: "A bare 40-hex token used as the URL user, as git does with https://TOKEN@github.com.",
    pattern: /:\/\/(?<secret>[0-9a-f]{40})@/dg,
  },
  {
    id: "authorization-header",
    facts: "HTTP Authorization and Proxy-Authorization headers carry the credential after the scheme.",
    pattern:
      /(?:Proxy-)?Authorization["']?\s{0,3}[:=]\s{0,3}["']?(?:(?:Bearer|Basic|token|Digest|Negotiate|NTLM|Bot)\s{1,3})?(?<secret>[^\s"'\\,;]{6,8192})/dgi,
    accept: isNotPlaceholder,
  },
  {
    id: "bearer-token",
    facts: "A bearer credential (RFC 6750 b64token) outside a header, e.g. in a curl line or a log.",
    pattern: /(?<![A-Za-z0-9])Bearer\s{1,3}(?<secret>[A-Za-z0-9._~+/-]{16,8192}=*)/dgi,
  },
  {
    id: "aws-secret-access-key",
    facts: "AWS secret access keys: 40 base64 characters, recognisable only next to their name.",
    pattern:
      /(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key["']?\s{0,3}[:=]\s{0,3}["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dgi,
  },
  {
    id: "azure-storage-key",
    facts: "Azure connection strings: AccountKey=base64; Service Bus/Event Hubs: SharedAccessKey=base64.",
    pattern: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/=]{20,512})/dgi,
  },
  {
    id: "azure-sas-signature",
    facts: "Azure shared access signature URLs carry their HMAC in the sig= query parameter.",
    pattern: /[?&]sig=(?<secret>[A-Za-z0-9%+/=]{20,512})/dg,
  },
  {
    id: "twilio-key",
    facts: "Twilio account SIDs (AC + 32 hex) and API key SIDs (SK + 32 hex).",
    pattern: /(?<![A-Za-z0-9])(?:AC|SK)[0-9a-f]{32}(?![A-Za-z0-9])/dg,
  },
  {
    id: "twilio-auth-token",
    facts:
      "Twilio auth tokens are 32 lower-case hex, like an MD5, so only under their name: TWILIO_AUTH_TOKEN, " +
      "authToken, auth_token, with `=`, `:` or only a space (Dockerfile ENV, setx, fish `set -x`).",
    pattern:
      /auth[_-]?token["']?[ \t]{0,3}(?:[:=]|=>|:=)?[ \t]{0,3}["']?(?<secret>[0-9a-f]{32})(?![0-9A-Za-z])/dgi,
  },
  {
    id: "twilio-auth-token",
    facts:
      "SDK constructors and `curl -u SID:SECRET` put the credential right after its SID: an account SID " +
      "(AC…) is followed by the auth token, an API key SID (SK…) by the key's 32-character secret.",
    pattern:
      /(?<![A-Za-z0-9])(?:AC|SK)[0-9a-f]{32}(?:[\s,:;=()"'`|]|\\[nrt]){1,16}(?<secret>[A-Za-z0-9]{32})(?![A-Za-z0-9])/dg,
  },
  {
    id: "mailgun-api-key",
    facts: "Mailgun private API keys: key- + 32 hex.",
    pattern: /(?<![A-Za-z0-9-])key-[0-9a-f]{32}(?![A-Za-z0-9])/dg,
  },
  {
    id: "telegram-bot-token",
    facts: "Telegram bot tokens: numeric bot id : AA + 33 URL-safe characters.",
    pattern: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/dg,
  },
  {
    id: "slack-webhook",
    facts: "Slack incoming-webhook and workflow URLs are bearer credentials in their path.",
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{10,512}/dg,
  },
  {
    id: "discord-webhook",
    facts: "Discord webhook URLs: /api/webhooks/<id>/<token>.",
    pattern:
      /https?:\/\/(?:[a-z]+\.)?discord(?:app)?\.com\/api\/webhooks\/[0-9]{5,30}\/[A-Za-z0-9_-]{20,256}/dg,
  },
  {
    id: "secret-assignment",
    facts: "Command-line flags that take a credential as the next word: --password VALUE, --token VALUE.",
    pattern:
      /(?<![\w-])--(?:password|passwd|token|api-key|apikey|secret|client-secret|access-token|auth-token)\s{1,3}(?<secret>"[^"\n]{6,512}"|'[^'\n]{6,512}'|[^\s"'-][^\s"']{5,512})/dgi,
    accept: (match) => {
      const { value, quoted } = unquote(match.groups?.["secret"] ?? "");
      return isLikelySecretValue(value, quoted);
    },
  },
  {
    id: "basic-auth-password",
    facts:
      "curl and wget take USER:PASSWORD after -u/--user/--proxy-user (curl -u :PAT https://dev.azure.com/…, " +
      "curl -uadmin:pw); the part after the first colon is the password. Values that read as names or " +
      "ids (docker -u 1000:1000, -u www-data:www-data) are left alone.",
    pattern:
      /(?<![\w-])(?:-u|--user|--proxy-user)(?:[ \t]{1,3}|=)?["']?[^\s:"']{0,256}:(?<secret>[^\s"']{1,512})/dg,
    accept: (match) => isNotPlaceholder(match) && isLikelySecretValue(match.groups?.["secret"] ?? "", true),
  },
  {
    id: "declared-secret",
    facts:
      "Values a CI log itself declares secret: Azure Pipelines `##vso[task.setvariable …;issecret=true]VALUE` " +
      "and `##vso[task.setsecret]VALUE`, GitHub Actions `::add-mask::VALUE`. The value runs to the end of " +
      "the line (a real one, or a JSON `\\n`), or to an unescaped quote that closes a JSON string.",
    pattern:
      /(?:##vso\[task\.set(?:secret|variable[^\]\r\n]{0,512}?issecret=true[^\]\r\n]{0,512})\]|::add-mask::)(?<secret>(?:[^\r\n\\"]|\\(?![nr]).){1,4096})/dgi,
    accept: isNotPlaceholder,
  },
];
