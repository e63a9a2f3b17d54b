import { z } from "zod";
import type { Tool } from "../tools/tool.js";
import { defineTool } from "../tools/tool.js";
import { errorResult, okResult } from "../tools/tool-result.js";
import type { SkillSummary } from "./discover-skills.js";
import { truncateUtf8 } from "./truncate-utf8.js";

const loadSkillInput = z.object({
  name: z.string().describe("The skill's name as listed in the skill index"),
});

export interface LoadSkillToolOptions {
  /** The most body bytes one call brings into the context. */
  readonly maxBytes?: number;
}

/**
 * `load_skill` brings a skill's body into the context when the model decides it needs it
 * (progressive disclosure). The output is marked with source "skill" so the registry fences it:
 * a repository skill is content of the repository, as untrusted as any file in it.
 */
export function createLoadSkillTool(
  skills: readonly SkillSummary[],
  options: LoadSkillToolOptions = {},
): Tool<typeof loadSkillInput> {
  const maxBytes = options.maxBytes ?? 20_000;
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  return defineTool({
    name: "load_skill",
    description:
      "Load the full instructions of a skill from the skill index, by name. Call it when a listed skill fits the task.",
    kind: "read",
    source: "skill",
    inputSchema: loadSkillInput,
    execute(input) {
      const skill = byName.get(input.name);
      if (!skill) {
        const names = [...byName.keys()];
        const available = names.length > 0 ? names.join(", ") : "none";
        return Promise.resolve(
          errorResult("INVALID_ARGUMENTS", {
            message: `no skill named ${JSON.stringify(input.name)}; available skills: ${available}`,
            recovery_hint:
              names.length > 0
                ? "call load_skill with one of the available names"
                : "continue without a skill",
            next_actions:
              names.length > 0
                ? names.slice(0, 5).map((name) => `load_skill ${name}`)
                : ["continue the task"],
          }),
        );
      }
      const cut = truncateUtf8(skill.body, maxBytes);
      const note = cut.isTruncated
        ? `\n\n[skill ${skill.name} truncated: showing the first ${cut.keptBytes} of ${cut.totalBytes} bytes]`
        : "";
      return Promise.resolve(
        okResult(`${cut.text}${note}`, {
          summary: `loaded skill ${skill.name} (${cut.keptBytes} bytes${cut.isTruncated ? ", truncated" : ""})`,
          metadata: {
            skill: skill.name,
            origin: skill.origin,
            path: skill.path,
            isTruncated: cut.isTruncated,
            totalBytes: cut.totalBytes,
          },
        }),
      );
    },
  });
}
