import { readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { operatorConfigSchema, type OperatorConfig } from "./operator-config-schema.js";
import { keysAtPath, suggestNearestKey } from "./suggest-nearest-key.js";

export type LoadOperatorConfigResult =
  | {
      readonly success: true;
      readonly value: OperatorConfig;
      readonly digest: string;
      readonly path: string | null;
    }
  | { readonly success: false; readonly error: string };

/** Reads AGENTFORGE_CONFIG (or an explicit path); a missing variable gives the defaults. */
export async function loadOperatorConfig(path: string | undefined): Promise<LoadOperatorConfigResult> {
  if (!path) return parseOperatorConfig({}, null);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "unknown";
    return {
      success: false,
      error: `Cannot read the operator config ${path} (${code}). Fix AGENTFORGE_CONFIG or --config.`,
    };
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    return {
      success: false,
      error: `The operator config ${path} is not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return parseOperatorConfig(raw ?? {}, path);
}

export function parseOperatorConfig(raw: unknown, path: string | null): LoadOperatorConfigResult {
  const parsed = operatorConfigSchema.safeParse(raw);
  if (!parsed.success)
    return {
      success: false,
      error: `Invalid operator config${path ? ` ${path}` : ""}: ${describeIssues(parsed.error)}`,
    };
  const digest = createHash("sha256").update(JSON.stringify(parsed.data)).digest("hex").slice(0, 16);
  return { success: true, value: parsed.data, digest, path };
}

/** Names each bad key with a dotted path so the operator knows what to fix. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const key = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
      const unknown =
        issue.code === "unrecognized_keys"
          ? ` (unknown key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map((name) => withSuggestion(name, issue.path)).join(", ")})`
          : "";
      return `\`${key}\`: ${issue.message}${unknown}`;
    })
    .join("; ");
}

function withSuggestion(name: string, path: readonly PropertyKey[]): string {
  const nearest = suggestNearestKey(name, keysAtPath(operatorConfigSchema, path));
  return nearest === null ? name : `${name} — did you mean ${nearest}?`;
}
