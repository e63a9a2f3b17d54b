import { parse } from "yaml";
import { z } from "zod";

export interface ParsedSkillFile {
  readonly name: string;
  readonly description: string;
  /** The markdown after the front matter. */
  readonly body: string;
}

export type SkillFileParse =
  | { readonly success: true; readonly value: ParsedSkillFile }
  | { readonly success: false; readonly error: string };

/**
 * The description is shown in the system prompt for every skill, so it is held to one short
 * line: no line breaks or control characters that could start a fake section there.
 */
const frontMatterSchema = z.object({
  name: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9-]{0,63}$/,
      "name must be 1-64 lowercase letters, digits or '-', starting with a letter or digit",
    ),
  description: z
    .string()
    .trim()
    .min(1, "description must not be empty")
    .max(300, "description must be at most 300 characters")
    .regex(
      // eslint-disable-next-line no-control-regex
      /^[^\u0000-\u001f\u007f\u2028\u2029]*$/,
      "description must be one line without control characters",
    ),
});

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export function parseSkillFile(text: string): SkillFileParse {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { success: false, error: "no front matter (the file must start with a '---' block)" };
  let data: unknown;
  try {
    // The yaml library caps alias expansion, so a hostile file cannot blow up memory.
    data = parse(match[1] ?? "");
  } catch (error) {
    return {
      success: false,
      error: `front matter is not valid YAML: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const parsed = frontMatterSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    return {
      success: false,
      error: `invalid front matter: ${field}${issue?.message ?? "expected name and description"}`,
    };
  }
  return {
    success: true,
    value: { ...parsed.data, body: text.slice(match[0].length).replace(/^(\r?\n)+/, "") },
  };
}
