import type { SkillSummary } from "./discover-skills.js";

/**
 * One line per skill for the system prompt: `- name: description`. Repository skills are marked,
 * because their descriptions are written by the repository, not by the operator. Returns "" when
 * there are no skills, so the caller can leave the section out.
 */
export function renderSkillIndex(skills: readonly SkillSummary[]): string {
  return skills
    .map((skill) => {
      const description = skill.description.replace(/\s+/g, " ").trim();
      const marker = skill.origin === "repository" ? " (repository skill)" : "";
      return `- ${skill.name}: ${description}${marker}`;
    })
    .join("\n");
}
