/**
 * A command may end with `with <model>`: one token that looks like a model id, which has a digit,
 * `-`, `/`, `:` or `.` in it (`gpt-4.1`, `qwen2.5-coder:7b`, `openai/gpt-5`). A plain word is part
 * of the instructions: `fix the crash with retries` chooses nothing.
 */
const TRAILING_MODEL = /(?:^|\s)with\s+([A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}?)[.!?,;]*$/i;
const MODEL_MARK = /[0-9\-/:.]/;

export interface ModelChoice {
  /** The words before `with <model>`, trimmed (the whole text when no model is chosen). */
  readonly text: string;
  readonly model?: string;
}

export function splitModelChoice(text: string): ModelChoice {
  const trimmed = text.trim();
  const match = TRAILING_MODEL.exec(trimmed);
  if (match === null || !MODEL_MARK.test(match[1]!)) return { text: trimmed };
  return { text: trimmed.slice(0, match.index).trim(), model: match[1]! };
}
