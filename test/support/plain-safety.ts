import type { ContentSafety } from "../../src/core/tools/content-safety.js";

/** A transparent safety layer for tests of the loop and registry mechanics. */
export const plainSafety: ContentSafety = {
  clean: async (text) => ({ text, truncated: false }),
  redact: (text) => text,
  fence: (content, source) => `<<<${source}>>>\n${content}\n<<<end>>>`,
};

export const allowAll = { decide: async () => ({ allowed: true, reason: "test" }) };
