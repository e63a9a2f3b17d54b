import type { z } from "zod";
import { suggestNearestKey } from "../../core/config/index.js";
import { CONFIG_EXPECTATIONS, REPOSITORY_CONFIG_PATH } from "./repository-config.js";

const WHERE = `edit ${REPOSITORY_CONFIG_PATH} on the default branch`;

function displayPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === "number") return `${text}[${segment}]`;
    return text === "" ? String(segment) : `${text}.${String(segment)}`;
  }, "");
}

function expectationKey(path: readonly PropertyKey[]): string {
  return path.map((segment) => (typeof segment === "number" ? "*" : String(segment))).join(".");
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  // JSON.stringify gives undefined for functions and symbols, which YAML cannot produce anyway.
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function allowedKeysAt(path: readonly PropertyKey[]): string[] {
  const prefix = expectationKey(path);
  return Object.keys(CONFIG_EXPECTATIONS)
    .filter((key) => {
      if (key === "" || key.endsWith(".*")) return false;
      const parent = key.includes(".") ? key.slice(0, key.lastIndexOf(".")) : "";
      return parent === prefix;
    })
    .map((key) => key.slice(key.lastIndexOf(".") + 1));
}

/**
 * One line per problem, naming the key and what to write instead, e.g.
 * "`review.max_comments`: expected a number ≤ 100 (...), got "lots" — edit .github/agentforge.yml on the default branch".
 */
export function formatConfigIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      const keys = allowedKeysAt(issue.path);
      const allowed = keys.join(", ");
      return issue.keys.map((key) => {
        const nearest = suggestNearestKey(key, keys);
        return `\`${displayPath([...issue.path, key])}\`: unknown key${nearest === null ? "" : ` — did you mean ${nearest}?`} — the keys allowed here are ${allowed}; remove or rename it (${WHERE})`;
      });
    }
    const name = displayPath(issue.path);
    const expected = CONFIG_EXPECTATIONS[expectationKey(issue.path)] ?? issue.message;
    const got = "input" in issue ? describeValue(issue.input) : "an invalid value";
    return [
      `\`${name === "" ? REPOSITORY_CONFIG_PATH : name}\`: expected ${expected}, got ${got} — ${WHERE}`,
    ];
  });
}
