/**
 * Credentials that announce themselves with a fixed prefix. Each entry records the format as the
 * issuer documents it: the prefix, the alphabet of the body and the shortest full body. Anything
 * with the prefix and at least `fragmentMin` body characters is redacted too (as `prefix-fragment`),
 * because a key cut by truncation or wrapped by a terminal is still a leaked key.
 */
export interface PrefixedTokenFormat {
  readonly id: string;
  readonly prefixes: readonly string[];
  /** Characters the body may contain, as the inside of a regex character class. */
  readonly alphabet: string;
  /** Shortest body of a complete token; a shorter run is a fragment. */
  readonly fullMin: number;
  /**
   * Whether the prefix alone is proof enough. When false (`sk-`, `npm_`, `hf_`) a body that reads
   * like a name (`sk-learn`, `npm_config_cache`, `hf_hub_download`) is left alone.
   */
  readonly distinctive: boolean;
  readonly fragmentMin?: number;
  readonly facts: string;
}

const BASE62 = "A-Za-z0-9";
const BASE62_UNDERSCORE = "A-Za-z0-9_";
const URL_SAFE = "A-Za-z0-9_-";

export const PREFIXED_TOKEN_FORMATS: readonly PrefixedTokenFormat[] = [
  {
    id: "github-token",
    prefixes: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    alphabet: BASE62_UNDERSCORE,
    fullMin: 36,
    distinctive: true,
    facts:
      "GitHub personal, OAuth, user-to-server, server-to-server (installation) and refresh tokens: " +
      "prefix + 36 base62 today; installation tokens may grow, so any length counts.",
  },
  {
    id: "github-fine-grained-token",
    prefixes: ["github_pat_"],
    alphabet: BASE62_UNDERSCORE,
    fullMin: 82,
    distinctive: true,
    facts: "GitHub fine-grained personal access token: github_pat_ + 22 base62 + _ + 59 base62.",
  },
  {
    id: "anthropic-api-key",
    prefixes: ["sk-ant-"],
    alphabet: URL_SAFE,
    fullMin: 40,
    distinctive: true,
    facts: "Anthropic keys: sk-ant-api03-/sk-ant-admin01- followed by ~95 URL-safe characters.",
  },
  {
    id: "openrouter-api-key",
    prefixes: ["sk-or-v1-"],
    alphabet: BASE62,
    fullMin: 64,
    distinctive: true,
    facts: "OpenRouter keys: sk-or-v1- + 64 hex.",
  },
  {
    id: "openai-api-key",
    prefixes: ["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"],
    alphabet: URL_SAFE,
    fullMin: 32,
    distinctive: false,
    facts:
      "OpenAI keys: sk- + 48 base62 (legacy) or sk-proj-/sk-svcacct-/sk-admin- + ~150 URL-safe; " +
      "many compatible providers (DeepSeek, Moonshot...) reuse sk- + 32 or more characters.",
  },
  {
    id: "slack-token",
    prefixes: ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xoxo-", "xapp-"],
    alphabet: "A-Za-z0-9-",
    fullMin: 20,
    distinctive: true,
    facts: "Slack bot/user/app/refresh tokens: xox?- or xapp- then dash-separated numbers and base62.",
  },
  {
    id: "google-api-key",
    prefixes: ["AIza"],
    alphabet: URL_SAFE,
    fullMin: 35,
    distinctive: false,
    facts: "Google API keys: AIza + 35 URL-safe characters.",
  },
  {
    id: "google-oauth-secret",
    prefixes: ["GOCSPX-"],
    alphabet: URL_SAFE,
    fullMin: 28,
    distinctive: true,
    facts: "Google OAuth client secrets: GOCSPX- + 28 URL-safe characters.",
  },
  {
    id: "google-oauth-access-token",
    prefixes: ["ya29."],
    alphabet: URL_SAFE,
    fullMin: 20,
    distinctive: true,
    facts: "Google OAuth access tokens: ya29. + a long URL-safe body.",
  },
  {
    id: "aws-access-key-id",
    prefixes: ["AKIA", "ASIA", "ABIA", "ACCA"],
    alphabet: "A-Z0-9",
    fullMin: 16,
    distinctive: false,
    fragmentMin: 12,
    facts: "AWS access key ids: AKIA (long-term) or ASIA (temporary) + 16 upper-case base32-like.",
  },
  {
    id: "npm-token",
    prefixes: ["npm_"],
    alphabet: BASE62,
    fullMin: 36,
    distinctive: false,
    facts: "npm granular and automation tokens: npm_ + 36 base62.",
  },
  {
    id: "gitlab-token",
    prefixes: ["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glft-", "glimt-", "glagent-"],
    alphabet: URL_SAFE,
    fullMin: 20,
    distinctive: true,
    facts: "GitLab personal, deploy, runner, trigger and agent tokens: gl*- + 20 or more URL-safe.",
  },
  {
    id: "huggingface-token",
    prefixes: ["hf_"],
    alphabet: BASE62,
    fullMin: 30,
    distinctive: false,
    facts: "Hugging Face access tokens: hf_ + 34 letters.",
  },
  {
    id: "sendgrid-api-key",
    prefixes: ["SG."],
    alphabet: "A-Za-z0-9_.-",
    fullMin: 60,
    distinctive: false,
    facts: "SendGrid keys: SG. + 22 URL-safe + . + 43 URL-safe.",
  },
  {
    id: "stripe-secret-key",
    prefixes: ["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
    alphabet: BASE62,
    fullMin: 24,
    distinctive: true,
    facts:
      "Stripe secret and restricted keys (sk_/rk_ + live_/test_ + 24 or more base62) and webhook " +
      "signing secrets (whsec_). Publishable keys (pk_) are public by design and kept.",
  },
  {
    id: "shopify-token",
    prefixes: ["shpat_", "shpca_", "shppa_", "shpss_"],
    alphabet: "a-fA-F0-9",
    fullMin: 32,
    distinctive: true,
    facts: "Shopify access tokens and shared secrets: shp??_ + 32 hex.",
  },
  {
    id: "linear-api-key",
    prefixes: ["lin_api_"],
    alphabet: BASE62,
    fullMin: 40,
    distinctive: true,
    facts: "Linear API keys: lin_api_ + 40 base62.",
  },
  {
    id: "digitalocean-token",
    prefixes: ["dop_v1_", "doo_v1_", "dor_v1_"],
    alphabet: "a-f0-9",
    fullMin: 64,
    distinctive: true,
    facts: "DigitalOcean personal, OAuth and refresh tokens: do?_v1_ + 64 hex.",
  },
  {
    id: "pypi-token",
    prefixes: ["pypi-AgEIcHlwaS5vcmc"],
    alphabet: URL_SAFE,
    fullMin: 50,
    distinctive: true,
    facts: "PyPI upload tokens: a macaroon whose base64 starts with pypi-AgEIcHlwaS5vcmc.",
  },
  {
    id: "docker-hub-token",
    prefixes: ["dckr_pat_"],
    alphabet: URL_SAFE,
    fullMin: 27,
    distinctive: true,
    facts: "Docker Hub personal access tokens: dckr_pat_ + 27 URL-safe.",
  },
  {
    id: "groq-api-key",
    prefixes: ["gsk_"],
    alphabet: BASE62,
    fullMin: 52,
    distinctive: false,
    facts: "Groq keys: gsk_ + 52 base62.",
  },
  {
    id: "xai-api-key",
    prefixes: ["xai-"],
    alphabet: BASE62,
    fullMin: 80,
    distinctive: false,
    facts: "xAI keys: xai- + 80 base62.",
  },
  {
    id: "replicate-api-token",
    prefixes: ["r8_"],
    alphabet: BASE62,
    fullMin: 37,
    distinctive: false,
    facts: "Replicate tokens: r8_ + 37 base62.",
  },
  {
    id: "perplexity-api-key",
    prefixes: ["pplx-"],
    alphabet: BASE62,
    fullMin: 48,
    distinctive: false,
    facts: "Perplexity keys: pplx- + 48 base62.",
  },
  {
    id: "postman-api-key",
    prefixes: ["PMAK-"],
    alphabet: "A-Za-z0-9-",
    fullMin: 59,
    distinctive: true,
    facts: "Postman keys: PMAK- + 24 hex + - + 34 hex.",
  },
  {
    id: "sentry-token",
    prefixes: ["sntrys_", "sntryu_"],
    alphabet: "A-Za-z0-9_+/=",
    fullMin: 40,
    distinctive: true,
    facts: "Sentry organisation and user auth tokens: sntrys_/sntryu_ + base64.",
  },
  {
    id: "doppler-token",
    prefixes: ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
    alphabet: BASE62,
    fullMin: 40,
    distinctive: true,
    facts: "Doppler service and personal tokens: dp.<kind>. + 40 or more base62.",
  },
  {
    id: "atlassian-api-token",
    prefixes: ["ATATT3"],
    alphabet: "A-Za-z0-9_=-",
    fullMin: 100,
    distinctive: true,
    facts: "Atlassian API tokens: ATATT3 + ~180 URL-safe characters.",
  },
  {
    id: "onepassword-token",
    prefixes: ["ops_eyJ"],
    alphabet: "A-Za-z0-9_=-",
    fullMin: 50,
    distinctive: true,
    facts: "1Password service account tokens: ops_ + base64url JSON.",
  },
];
