const HTML_ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML element content and quoted attribute values. Trace text is untrusted
 * (file contents, command output, model text), so every string reaches the page through here.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character] ?? character);
}

/**
 * Control and bidirectional-override characters are shown as visible codes: text from a tool must
 * not be able to reorder or hide what a reviewer reads (the "trojan source" trick).
 */
const INVISIBLE_CHARACTERS =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function escapeVisibleText(text: string): string {
  const shown = text.replace(
    INVISIBLE_CHARACTERS,
    (character) => `⟨U+${character.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0") ?? "?"}⟩`,
  );
  return escapeHtml(shown);
}
