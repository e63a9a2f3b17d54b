import { maskHiddenMarkdown } from "./mask-hidden-markdown.js";
import { splitModelChoice } from "./split-model-choice.js";

/** `model`: the one the person chose with a trailing `with <model>` (checked later against the operator's list). */
export type Command =
  | { readonly kind: "fix"; readonly instructions?: string; readonly model?: string }
  | { readonly kind: "plan"; readonly instructions?: string; readonly model?: string }
  /** `fix ci`: read the pull request's failing checks and fix its branch. */
  | { readonly kind: "fix-ci"; readonly model?: string }
  | { readonly kind: "review"; readonly full?: boolean; readonly model?: string }
  | { readonly kind: "stop" }
  | { readonly kind: ModeCommandKind }
  | { readonly kind: "help" }
  | { readonly kind: "request"; readonly text: string; readonly model?: string };

export type CommandKind = Command["kind"];

/** Commands that change how the app treats one issue or pull request from now on. */
export type ModeCommandKind = "pause" | "resume" | "ignore";

export interface CommandParseError {
  readonly code: "EMPTY_COMMAND" | "TOO_LONG";
  readonly message: string;
}

export type CommandParseResult =
  | { readonly success: true; readonly value: Command }
  | { readonly success: false; readonly error: CommandParseError };

/** Longer instructions are refused rather than cut: a cut request could mean something else. */
export const MAX_INSTRUCTIONS_LENGTH = 20_000;

/** Words that mean "no further instructions" after `fix` or `plan`. */
const BARE_OBJECTS = new Set([
  "",
  "this",
  "it",
  "this issue",
  "this one",
  "this please",
  "it please",
  "please",
]);
/** Words after `fix` that ask for the pull request's red checks to be fixed. */
const CI_OBJECTS = new Set(["ci", "the ci", "ci please", "the build", "the checks", "checks", "ci checks"]);
const TRAILING_PUNCTUATION = /[\s.!?,;:]+$/;

function escapeForPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** A mention is `@slug` as a whole word: not an e-mail, a longer name, a team or a domain. */
function findMentions(masked: string, appSlug: string): { start: number; end: number }[] {
  const pattern = new RegExp(`@${escapeForPattern(appSlug)}(?![A-Za-z0-9_\\-[/@])(?!\\.[A-Za-z0-9_])`, "gi");
  const mentions: { start: number; end: number }[] = [];
  for (const match of masked.matchAll(pattern)) {
    const before = match.index === 0 ? "" : masked[match.index - 1]!;
    if (before !== "" && /[A-Za-z0-9_\-.@/\\`]/.test(before)) continue;
    mentions.push({ start: match.index, end: match.index + match[0].length });
  }
  return mentions;
}

/**
 * Reads the command addressed to the app in a comment: the first whole-word `@agentforge`
 * mention that is visible prose (not code, quote or HTML comment) and carries a command.
 * Returns null when the comment does not address the app at all.
 */
export function parseCommand(body: string, appSlug = "agentforge"): CommandParseResult | null {
  const masked = maskHiddenMarkdown(body);
  const mentions = findMentions(masked, appSlug);
  if (mentions.length === 0) return null;
  let firstError: CommandParseError | null = null;
  for (const [index, mention] of mentions.entries()) {
    // A mention's command ends where the next mention starts: "cc @agentforge @agentforge help".
    const end = mentions[index + 1]?.start ?? body.length;
    const result = readCommandAfter(body.slice(0, end), masked.slice(0, end), mention.end);
    if (result.success) return result;
    firstError ??= result.error;
  }
  return { success: false, error: firstError! };
}

function readCommandAfter(body: string, masked: string, offset: number): CommandParseResult {
  // An optional ":" or "," after the name: "@agentforge: fix this".
  const word = /^[ \t]*[:,]?\s*([^\s]+)/.exec(masked.slice(offset));
  if (word === null) {
    return failure("EMPTY_COMMAND", "the mention has no command after it; try `@agentforge help`");
  }
  const wordStart = offset + word[0].length - word[1]!.length;
  const wordEnd = offset + word[0].length;
  const verb = word[1]!.toLowerCase().replace(TRAILING_PUNCTUATION, "");
  const lineEnd = masked.indexOf("\n", wordEnd);
  const restOfLine = masked.slice(wordEnd, lineEnd === -1 ? masked.length : lineEnd);
  const restOfLineWords = restOfLine.trim().toLowerCase().replace(TRAILING_PUNCTUATION, "");
  const rest = body.slice(wordEnd).trim();

  switch (verb) {
    case "fix":
    case "plan":
      return withInstructions(verb, rest);
    case "review": {
      // `review full` reads the whole pull request; a bare review reads what is new since the last one.
      const choice = splitModelChoice(restOfLine);
      const words = choice.text.toLowerCase().replace(TRAILING_PUNCTUATION, "");
      return {
        success: true,
        value: {
          kind: "review",
          ...(words === "full" || words === "all" ? { full: true } : {}),
          ...modelOf(choice),
        },
      };
    }
    case "pause":
    case "resume":
    case "ignore":
      if (restOfLineWords === "" || restOfLineWords === "please" || restOfLineWords === "this")
        return { success: true, value: { kind: verb } };
      break;
    case "stop":
    case "cancel":
      if (restOfLineWords === "" || restOfLineWords === "please")
        return { success: true, value: { kind: "stop" } };
      break;
    case "help":
      if (restOfLineWords === "") return { success: true, value: { kind: "help" } };
      break;
    default:
      break;
  }
  const whole = body.slice(wordStart).trim();
  if (whole.length > MAX_INSTRUCTIONS_LENGTH) return tooLong(whole.length);
  const choice = splitModelChoice(whole);
  // `@agentforge with gpt-4.1` asks nothing: the words stay the request.
  const request = choice.text === "" ? { text: whole } : choice;
  return { success: true, value: { kind: "request", text: request.text, ...modelOf(request) } };
}

function withInstructions(kind: "fix" | "plan", whole: string): CommandParseResult {
  if (whole.length > MAX_INSTRUCTIONS_LENGTH) return tooLong(whole.length);
  const choice = splitModelChoice(whole);
  const rest = choice.text;
  const normalized = rest.toLowerCase().replace(TRAILING_PUNCTUATION, "").replace(/\s+/g, " ");
  if (BARE_OBJECTS.has(normalized)) return { success: true, value: { kind, ...modelOf(choice) } };
  if (kind === "fix" && CI_OBJECTS.has(normalized))
    return { success: true, value: { kind: "fix-ci", ...modelOf(choice) } };
  return { success: true, value: { kind, instructions: rest, ...modelOf(choice) } };
}

function modelOf(choice: { readonly model?: string }): { model?: string } {
  return choice.model === undefined ? {} : { model: choice.model };
}

function tooLong(length: number): CommandParseResult {
  return failure(
    "TOO_LONG",
    `the instructions are ${length} characters long; the limit is ${MAX_INSTRUCTIONS_LENGTH}. Shorten them or link to a file`,
  );
}

function failure(code: CommandParseError["code"], message: string): CommandParseResult {
  return { success: false, error: { code, message } };
}
