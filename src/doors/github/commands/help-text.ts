/** The answer to `@agentforge help`, and the tail of every "I did not understand" reply. */
export function helpText(appSlug: string): string {
  const name = `@${appSlug}`;
  return [
    `**${name} commands** (people with write access only):`,
    "",
    `- \`${name} fix this\` or \`${name} fix <instructions>\` on an issue: make the change and open a pull request.`,
    `- \`${name} plan\` or \`${name} plan <instructions>\`: post a plan as a comment, change nothing.`,
    `- \`${name} review\` on a pull request: review what changed since its last review (the whole diff the first time), with comments on the lines; \`${name} review full\` reviews the whole diff again.`,
    `- \`${name} fix ci\` on a pull request: read its failing checks (output, annotations, job logs), fix the branch and push.`,
    `- \`${name} <request>\` on a pull request: change the pull request branch, or answer.`,
    `- \`${name} stop\`: cancel the running or waiting task here.`,
    `- \`${name} pause\`: no automatic reviews here until \`${name} resume\`; \`${name} ignore\`: leave this conversation alone (no automatic work, assignments or commands) until \`${name} resume\`.`,
    `- \`${name} help\`: this list.`,
    "",
    `Any of \`fix\`, \`fix ci\`, \`plan\`, \`review\` and a request may end with \`with <model>\` (\`${name} fix this with gpt-4.1\`) to choose one of the models this installation allows.`,
    "",
    "Assigning an issue to the app starts a fix; requesting its review on a pull request starts a review. When CI fails on a pull request the app opened, it tries to fix it (at most `ci.max_fix_attempts` times, 2 by default).",
    "",
    "Settings live in `.github/agentforge.yml` on the default branch.",
  ].join("\n");
}
