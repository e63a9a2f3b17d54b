/**
 * The three text gates every tool result passes, in this order: hygiene (control characters,
 * head/tail cut with the full output saved), redaction, fencing. The implementations live in
 * src/core/safety; the registry only knows this shape so tests can pass their own.
 */
export interface ContentSafety {
  /** Removes control characters and cuts long text, saving the full (redacted) text to the scratch area. */
  clean(
    text: string,
    options: { readonly label: string; readonly maxChars: number },
  ): Promise<{ readonly text: string; readonly truncated: boolean; readonly fullOutputPath?: string }>;
  redact(text: string): string;
  /** Wraps outside content in a boundary the content cannot close or forge. */
  fence(content: string, source: string): string;
}
