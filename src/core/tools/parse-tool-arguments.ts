import type { z } from "zod";

/** A model's arguments longer than this are cut when quoted back to it. */
const RAW_ARGUMENTS_QUOTE_LIMIT = 500;

/** The model's arguments as a JSON object; blank means `{}`. */
export function parseToolArguments(
  raw: string,
): { success: true; value: unknown } | { success: false; error: string } {
  const text = raw.trim() === "" ? "{}" : raw;
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { success: false, error: "expected a JSON object" };
    return { success: true, value };
  } catch (error) {
    return { success: false, error: error instanceof SyntaxError ? error.message : "unparseable" };
  }
}

export function quoteArguments(raw: string): string {
  const cut =
    raw.length > RAW_ARGUMENTS_QUOTE_LIMIT
      ? `${raw.slice(0, RAW_ARGUMENTS_QUOTE_LIMIT)}… (${raw.length} characters)`
      : raw;
  return JSON.stringify(cut);
}

export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}
