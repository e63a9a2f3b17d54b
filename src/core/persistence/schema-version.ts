import type { z } from "zod";
import { PersistenceError } from "./persistence-error.js";

/**
 * Every file we write names its format and version: `{"schema": "agentforge-<kind>/<N>", ...}`.
 * Older versions are read (and migrated, when there is a migration); a newer version is refused
 * rather than half-understood, because a file written by a newer agentforge may carry meaning
 * (a new status, a new kind of entry) that this version would silently drop.
 */
export interface SchemaSpec {
  readonly kind: string;
  /** The newest version this code reads and the one it writes. */
  readonly version: number;
}

const SCHEMA_TAG = /^agentforge-([a-z][a-z0-9-]*)\/([1-9][0-9]{0,8})$/;

export function schemaTag(spec: SchemaSpec): string {
  return `agentforge-${spec.kind}/${spec.version}`;
}

/** Check the `schema` field of a parsed file, then validate the rest with `contentSchema`. */
export function readVersioned<Output>(
  value: unknown,
  spec: SchemaSpec,
  contentSchema: z.ZodType<Output>,
  file: string,
): Output {
  checkSchemaTag(value, spec, file);
  const parsed = contentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new PersistenceError(
      "SCHEMA_INVALID",
      `${file} is not a valid ${schemaTag(spec)} file${where}: ${issue?.message ?? "invalid content"}`,
      { path: file, cause: parsed.error },
    );
  }
  return parsed.data;
}

/** Returns the version found; throws SCHEMA_TOO_NEW or SCHEMA_INVALID. */
export function checkSchemaTag(value: unknown, spec: SchemaSpec, file: string): number {
  const tag =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)["schema"]
      : undefined;
  if (typeof tag !== "string") {
    throw new PersistenceError(
      "SCHEMA_INVALID",
      `${file} has no "schema" field; expected "${schemaTag(spec)}"`,
      { path: file },
    );
  }
  const match = SCHEMA_TAG.exec(tag);
  if (!match || match[1] !== spec.kind) {
    throw new PersistenceError(
      "SCHEMA_INVALID",
      `${file} has schema ${JSON.stringify(tag)}; expected "${schemaTag(spec)}"`,
      { path: file },
    );
  }
  const found = Number(match[2]);
  if (found > spec.version) {
    throw new PersistenceError(
      "SCHEMA_TOO_NEW",
      `${file} was written by a newer agentforge (schema ${tag}); this version of agentforge reads ` +
        `${spec.kind} files up to version ${spec.version} (${schemaTag(spec)}). Upgrade agentforge to read it.`,
      { path: file },
    );
  }
  return found;
}
