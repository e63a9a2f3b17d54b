/** Reads trace attributes defensively: a trace is a file, and a file can hold anything. */
export type Attributes = Readonly<Record<string, unknown>>;

export function readString(attributes: Attributes, key: string): string | null {
  const value = attributes[key];
  return typeof value === "string" ? value : null;
}

export function readNumber(attributes: Attributes, key: string): number | null {
  const value = attributes[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** Attribute values are JSON: strings as they are, anything else as JSON text. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}
