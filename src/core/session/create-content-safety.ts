import { applyOutputHygiene } from "../safety/apply-output-hygiene.js";
import type { Fence } from "../safety/create-fence.js";
import type { Redactor } from "../safety/create-redactor.js";
import type { ContentSafety } from "../tools/content-safety.js";

/** Joins the safety pieces into the registry's three gates for one run. */
export function createContentSafety(options: {
  readonly redactor: Redactor;
  readonly fence: Fence;
  readonly scratchDir: string;
}): ContentSafety {
  return {
    clean: (text, cleanOptions) =>
      applyOutputHygiene(text, {
        ...cleanOptions,
        scratchDir: options.scratchDir,
        redactor: options.redactor,
      }),
    redact: (text) => options.redactor.redact(text),
    fence: (content, source) => options.fence.wrap(content, source),
  };
}
