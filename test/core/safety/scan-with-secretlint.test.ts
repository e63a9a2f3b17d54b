import { describe, expect, it } from "@jest/globals";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { scanWithSecretlint } from "../../../src/core/safety/scan-with-secretlint.js";
import { BASE62, buildCredentialCorpus, createRandom, HARMLESS_LOOK_ALIKES } from "./secret-corpus.js";

/**
 * Keeps the synchronous rules honest against a maintained rule set: whatever secretlint's
 * recommended preset flags in the corpus, redact() must hide too.
 */
describe("scanWithSecretlint cross-check", () => {
  const corpus = buildCredentialCorpus();
  const random = createRandom(99);
  const extra = [
    `npm token npm_${random(BASE62, 36)} in a log`,
    `export SLACK=xoxb-${random("0123456789", 11)}-${random("0123456789", 12)}-${random(BASE62, 24)}`,
    `mongodb+srv://admin:${random(BASE62, 16)}@cluster0.example.net/db`,
    `"private_key": "-----BEGIN PRIVATE KEY-----\\n${random(BASE62, 64)}\\n-----END PRIVATE KEY-----\\n"`,
  ];
  const texts = [...corpus.map((sample) => sample.text), ...extra];
  const redactor = createRedactor();

  it("hides everything the recommended preset finds in the corpus", async () => {
    let flaggedTexts = 0;
    for (const text of texts) {
      const findings = await scanWithSecretlint(text);
      if (findings.length > 0) flaggedTexts += 1;
      const redacted = redactor.redact(text);
      const ours = redactor.findSecrets(text);
      for (const finding of findings) {
        const flagged = text.slice(finding.start, finding.end);
        expect({ ruleId: finding.ruleId, survived: redacted.includes(flagged) }).toEqual({
          ruleId: finding.ruleId,
          survived: false,
        });
        expect(ours.some((range) => range.start < finding.end && range.end > finding.start)).toBe(true);
      }
    }
    // The check means something only if the preset recognises a good part of the corpus.
    expect(flaggedTexts).toBeGreaterThanOrEqual(15);
  });

  it("finds nothing in the look-alikes either, and no secret in redacted output", async () => {
    for (const text of HARMLESS_LOOK_ALIKES) {
      const findings = await scanWithSecretlint(text);
      expect(findings.map((finding) => finding.ruleId)).toEqual([]);
    }
    // The preset reads `scheme://[REDACTED:url-credentials]@host` as user:password; that is our
    // marker, not a secret. Anything else it finds in redacted text would be a leak.
    const redacted = redactor.redact(texts.join("\n"));
    const leftovers = (await scanWithSecretlint(redacted)).filter(
      (finding) => !redacted.slice(finding.start, finding.end).includes("[REDACTED:url-credentials]"),
    );
    expect(leftovers).toEqual([]);
  });
});
