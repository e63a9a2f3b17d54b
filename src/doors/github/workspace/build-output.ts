import ignore from "ignore";

/**
 * What a command leaves behind that nobody means to commit: interpreter caches, installed
 * packages, test-runner state. Gitignore patterns; a repository replaces the list with
 * `build_output` in `.github/agentforge.yml`. `dist/` is not on it: many repositories commit it.
 */
export const DEFAULT_BUILD_OUTPUT_PATTERNS: readonly string[] = [
  "__pycache__/",
  "*.py[cod]",
  ".pytest_cache/",
  ".mypy_cache/",
  ".ruff_cache/",
  ".tox/",
  "*.egg-info/",
  ".coverage",
  "node_modules/",
  ".DS_Store",
];

/** The pattern a path matches, or null: the first of `patterns` that covers it. */
export function matchBuildOutput(path: string, patterns: readonly string[]): string | null {
  for (const pattern of patterns) if (ignore().add(pattern).ignores(path)) return pattern;
  return null;
}
