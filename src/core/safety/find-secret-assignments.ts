import { isLikelySecretValue, isSecretName } from "./secret-heuristics.js";
import type { SecretRange } from "./secret-range.js";

export const SECRET_ASSIGNMENT_RULE_ID = "secret-assignment";

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`, `--name=value`, `name := value`, `name => value`
 * where NAME has a credential word (token, secret, password, api key, private key, auth,
 * credential, pat as in AZURE_DEVOPS_PAT...) and the value looks like a credential rather than
 * code or a placeholder.
 *
 * Searching for the credential word first and only then looking around it is several times
 * faster than a pattern that tries every identifier start: most text has few such words.
 */
const KEYWORD =
  /token|secret|pass|pwd|auth|credential|pat(?![a-z])|(?:api|private|access|signing|encryption|session|client|master|account|shared|license)[_-]?key/gi;

/** After the keyword: the rest of the name, an optional closing quote, the operator, the value. */
const REST =
  /([A-Za-z0-9_.-]{0,40})["']?[ \t]{0,5}(?::=|=>|=|:)[ \t]{0,5}("(?:[^"\\\n]|\\.){1,1024}"|'[^'\n]{1,1024}'|`[^`\n]{1,1024}`|[^\s"'`,;(){}<>[\]]{1,1024})/y;

const MAX_NAME_HEAD = 40;

function isNameCharacter(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 46 ||
    code === 45
  );
}

function unquote(value: string): { value: string; quoted: boolean } {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'" || first === "`") && value.endsWith(first)) {
    return { value: value.slice(1, -1), quoted: true };
  }
  return { value, quoted: false };
}

export function findSecretAssignments(text: string): SecretRange[] {
  const ranges: SecretRange[] = [];
  KEYWORD.lastIndex = 0;
  for (let keyword = KEYWORD.exec(text); keyword !== null; keyword = KEYWORD.exec(text)) {
    let nameStart = keyword.index;
    while (
      nameStart > 0 &&
      keyword.index - nameStart < MAX_NAME_HEAD &&
      isNameCharacter(text.charCodeAt(nameStart - 1))
    ) {
      nameStart -= 1;
    }
    // A name right after `/` or `@` is URL userinfo or a path; url-credentials judges those.
    const before = text[nameStart - 1];
    if (
      before === "/" ||
      before === "@" ||
      (nameStart > 0 && isNameCharacter(text.charCodeAt(nameStart - 1)))
    )
      continue;
    REST.lastIndex = keyword.index + keyword[0].length;
    const rest = REST.exec(text);
    if (rest === null) continue;
    KEYWORD.lastIndex = rest.index + rest[0].length;
    const name = text.slice(nameStart, rest.index + (rest[1] ?? "").length).replace(/^-+/, "");
    const rawValue = rest[2] ?? "";
    const valueEnd = rest.index + rest[0].length;
    const { value, quoted } = unquote(rawValue);
    if (!isSecretName(name)) continue;
    // `token = getToken()`: an unquoted value followed by a call is code.
    if (!quoted && text[valueEnd] === "(") continue;
    if (!isLikelySecretValue(value, quoted)) continue;
    const valueStart = valueEnd - rawValue.length;
    ranges.push(
      quoted
        ? { start: valueStart + 1, end: valueEnd - 1, ruleId: SECRET_ASSIGNMENT_RULE_ID }
        : { start: valueStart, end: valueEnd, ruleId: SECRET_ASSIGNMENT_RULE_ID },
    );
  }
  return ranges;
}
