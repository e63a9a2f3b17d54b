
export interface SecretlintFinding {
  readonly ruleId: string;
  readonly start: number;
  readonly end: number;
  readonly message: string;
}

/**
 * Scans text with secretlint's recommended preset, a maintained rule set. It is asynchronous, so
 * it cannot sit on the hot path of `redact()`; it serves as a cross-check that the synchronous
 * rules hide at least what the preset finds, and for slow paths that can await.
 */
export async function scanWithSecretlint(text: string): Promise<SecretlintFinding[]> {
  // Loaded at the first scan: every importer of core/safety would otherwise carry secretlint.
  const [{ lintSource }, { creator: recommendedPreset }] = await Promise.all([
    import("@secretlint/core"),
    import("@secretlint/secretlint-rule-preset-recommend"),
  ]);
  const result = await lintSource({
    source: { content: text, filePath: "/agentforge/scan.txt", contentType: "text" },
    options: {
      config: { rules: [{ id: recommendedPreset.meta.id, rule: recommendedPreset }] },
      noPhysicFilePath: true,
      maskSecrets: true,
    },
  });
  return result.messages.map((message) => ({
    ruleId: message.ruleId,
    start: message.range[0],
    end: message.range[1],
    message: message.message,
  }));
}
