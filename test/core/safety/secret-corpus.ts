import { generateKeyPairSync } from "node:crypto";

/**
 * Synthetic credentials: format-valid (right prefix, alphabet and length) but random, made
 * fresh from a seeded generator so failures reproduce. No real key is ever written here.
 */
export interface CredentialSample {
  readonly name: string;
  /** The text as it would appear in output, with the credential in context. */
  readonly text: string;
  /** The part that must not survive redaction. */
  readonly secret: string;
}

export function createRandom(seed: number): (alphabet: string, length: number) => string {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, length) => {
    let result = "";
    for (let index = 0; index < length; index += 1) result += alphabet[Math.floor(next() * alphabet.length)];
    return result;
  };
}

export const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const HEX = "0123456789abcdef";
const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** RFC 4648 base32 in lower case: the alphabet of legacy Azure DevOps PATs. */
export const BASE32_LOWER = "abcdefghijklmnopqrstuvwxyz234567";
const URL_SAFE = `${BASE62}-_`;
const BASE64 = `${BASE62}+/`;

function pemKeys(): { rsa: string; ec: string; pkcs8: string } {
  const rsa = generateKeyPairSync("rsa", {
    modulusLength: 1024,
    publicKeyEncoding: { type: "pkcs1", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  }).privateKey;
  const ec = generateKeyPairSync("ec", {
    namedCurve: "P-256",
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "sec1", format: "pem" },
  }).privateKey;
  const pkcs8 = generateKeyPairSync("ed25519", {
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  }).privateKey;
  return { rsa, ec, pkcs8 };
}

/**
 * The current Azure DevOps PAT layout (84 base62 characters): 52 random, the JQQJ99 signature, a
 * two-letter date, 16 reserved, AZDO at offset 76, 4 checksum characters (random here).
 */
export function azureDevOpsPat(random: (alphabet: string, length: number) => string): string {
  return `${random(BASE62, 52)}JQQJ99${random("ABCDEFGHIJKL", 2)}${random(BASE62, 16)}AZDO${random(BASE62, 4)}`;
}

export function wrapLines(body: string, width: number): string {
  return body.match(new RegExp(`.{1,${width}}`, "g"))?.join("\n") ?? body;
}

export function buildCredentialCorpus(seed = 20240601): CredentialSample[] {
  const random = createRandom(seed);
  const keys = pemKeys();
  const ghs = `ghs_${random(BASE62, 36)}`;
  const hex40 = random(HEX, 40);
  const awsSecret = random(BASE64, 40);
  const jwt = [
    Buffer.from('{"alg":"HS256","typ":"JWT"}').toString("base64url"),
    Buffer.from(`{"sub":"${random(BASE62, 10)}","iat":1700000000}`).toString("base64url"),
    random(URL_SAFE, 43),
  ].join(".");
  const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\n${wrapLines(`b3BlbnNzaC1rZXktdjEAAAAA${random(BASE64, 360)}`, 70)}\n-----END OPENSSH PRIVATE KEY-----`;
  const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${wrapLines(random(BASE64, 300), 64)}\n=${random(BASE64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`;
  const basic = Buffer.from(`deploy:${random(BASE62, 20)}`).toString("base64");
  const twilioSid = `AC${random(HEX, 32)}`;
  const adoPat = azureDevOpsPat(random);
  const samples: Array<[string, string, string, string?]> = [
    ["github classic ghp", "", `ghp_${random(BASE62, 36)}`],
    ["github oauth gho", "token: ", `gho_${random(BASE62, 36)}`],
    ["github user-to-server ghu", "GH_TOKEN=", `ghu_${random(BASE62, 36)}`],
    ["github installation ghs", "installation token ", ghs],
    ["github installation ghs, longer format", "", `ghs_${random(BASE62, 90)}`],
    ["github refresh ghr", "refresh=", `ghr_${random(BASE62, 76)}`],
    ["github fine-grained pat", "", `github_pat_${random(BASE62, 22)}_${random(BASE62, 59)}`],
    ["github v1 token in Authorization header", "Authorization: token ", hex40],
    ["github v1 token as URL user", "https://", random(HEX, 40), "@github.com/o/r.git"],
    ["installation token in clone URL", "git clone https://x-access-token:", ghs, "@github.com/o/r"],
    ["openai legacy key", "OPENAI_API_KEY=", `sk-${random(BASE62, 20)}T3BlbkFJ${random(BASE62, 20)}`],
    ["openai project key", "", `sk-proj-${random(URL_SAFE, 156)}`],
    ["anthropic key", "x-api-key: ", `sk-ant-api03-${random(URL_SAFE, 93)}AA`],
    ["openrouter key", "", `sk-or-v1-${random(HEX, 64)}`],
    ["aws access key id", "aws_access_key_id = ", `AKIA${random(UPPER_ALNUM, 16)}`],
    ["aws temporary access key id", '"AccessKeyId": "', `ASIA${random(UPPER_ALNUM, 16)}`],
    ["aws secret access key", "aws_secret_access_key = ", awsSecret],
    [
      "slack bot token",
      "",
      `xoxb-${random("0123456789", 12)}-${random("0123456789", 13)}-${random(BASE62, 24)}`,
    ],
    [
      "slack user token",
      "",
      `xoxp-${random("0123456789", 12)}-${random("0123456789", 12)}-${random(HEX, 32)}`,
    ],
    [
      "slack webhook",
      "https://hooks.slack.com/services/",
      `T${random(UPPER_ALNUM, 10)}/B${random(UPPER_ALNUM, 10)}/${random(BASE62, 24)}`,
    ],
    ["google api key", "key=", `AIza${random(URL_SAFE, 35)}`],
    ["google oauth client secret", "", `GOCSPX-${random(URL_SAFE, 28)}`],
    ["stripe live secret key", "", `sk_live_${random(BASE62, 99)}`],
    ["stripe restricted test key", "", `rk_test_${random(BASE62, 40)}`],
    ["jwt", "id_token=", jwt],
    ["generic env assignment", "DEPLOY_TOKEN=", random(BASE62, 32)],
    ["json client secret", '{"client_secret": "', random(BASE62, 40)],
    ["yaml password", "database:\n  password: ", `${random(BASE62, 14)}!9`],
    ["quoted shell password", "DB_PASSWORD='", `${random(BASE62, 18)}#2`],
    ["database URL credentials", "postgres://app:", random(BASE62, 24), "@db:5432/app"],
    ["authorization basic", "Authorization: Basic ", basic],
    ["bearer in curl", 'curl -H "Authorization: Bearer ', random(BASE62, 40)],
    ["npm token", "", `npm_${random(BASE62, 36)}`],
    ["npmrc auth token", "//registry.example.com/:_authToken=", random(BASE62, 36)],
    ["gitlab pat", "", `glpat-${random(URL_SAFE, 20)}`],
    ["twilio api key sid", "", `SK${random(HEX, 32)}`],
    ["sendgrid key", "", `SG.${random(URL_SAFE, 22)}.${random(URL_SAFE, 43)}`],
    [
      "azure storage connection string",
      "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=",
      `${random(BASE64, 86)}==`,
    ],
    [
      "azure sas url",
      "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=",
      `${random(BASE62, 43)}%3D`,
    ],
    ["hugging face token", "", `hf_${random(BASE62, 34)}`],
    ["telegram bot token", "", `${random("123456789", 10)}:AA${random(URL_SAFE, 33)}`],
    ["mailgun key", "", `key-${random(HEX, 32)}`],
    [
      "discord webhook",
      `https://discord.com/api/webhooks/${random("0123456789", 18)}/`,
      random(URL_SAFE, 68),
    ],
    ["shopify token", "", `shpat_${random(HEX, 32)}`],
    ["digitalocean token", "", `dop_v1_${random(HEX, 64)}`],
    ["password flag", "mysql --password ", `${random(BASE62, 16)}7`],
    ["redis URL with only a password", "redis://:", random(BASE62, 24), "@cache.internal:6379/0"],
    [
      "mongodb+srv URL with only a password",
      "mongodb+srv://:",
      random(BASE62, 20),
      "@cluster0.example.net/db",
    ],
    [
      "amqp URL password holding an @",
      "amqp://app:",
      `${random(BASE62, 10)}@${random(BASE62, 10)}`,
      "@rabbit/vhost",
    ],
    ["netrc entry on one line", "machine api.example.com login deploy password ", random(BASE62, 20)],
    ["netrc entry over lines", "machine git.example.com\n  login ci\n  password ", `${random(BASE62, 18)}!`],
    ["netrc default entry", "default login anonymous password ", random(BASE62, 16)],
    ["twilio auth token, space-separated ENV", "ENV TWILIO_AUTH_TOKEN ", random(HEX, 32)],
    ["twilio auth token after its account sid", `client = Client("${twilioSid}", "`, random(HEX, 32)],
    ["twilio api key secret after its sid", `Client("SK${random(HEX, 32)}", "`, random(BASE62, 32)],
    ["azure devops pat, current format", "", adoPat],
    [
      "azure devops legacy pat in curl -u",
      "curl -u :",
      random(BASE32_LOWER, 51) + "7",
      " https://dev.azure.com/org/_apis",
    ],
    ["azure devops legacy pat named", "AZURE_DEVOPS_EXT_PAT=", random(BASE32_LOWER, 51) + "2"],
    [
      "azure devops legacy pat piped to az login",
      "echo ",
      random(BASE32_LOWER, 51) + "3",
      " | az devops login",
    ],
    ["rsa private key", "", keys.rsa.trim()],
    ["ec private key", "", keys.ec.trim()],
    ["pkcs8 private key", "", keys.pkcs8.trim()],
    ["openssh private key", "", openssh],
    ["pgp private key block", "", pgp],
  ];
  return samples.map(([name, before, secret, after]) => ({
    name,
    text: `${before}${secret}${after ?? (before.endsWith("'") ? "'" : before.endsWith('"') ? '"' : "")} # end`,
    secret,
  }));
}

/** Text that looks a little like credentials but is not; redaction must leave it alone. */
export const HARMLESS_LOOK_ALIKES: readonly string[] = [
  "We use sk-learn style estimators and scikit-learn.",
  "a task-ask pipeline with sk-spinner sk-fading-circle classes",
  "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
  'label for="password_field_name"',
  "the token word, tokens counted, token budget",
  "AWS access keys start with AKIA and temporary ones with ASIA.",
  "request 123e4567-e89b-12d3-a456-426614174000 done",
  "max_tokens: 4096",
  "const token = getToken(options);",
  "password: z.string().min(8),",
  "tokenizer: cl100k_base",
  "npm_config_cache=/tmp/cache npm_lifecycle_event=test",
  "from huggingface_hub import hf_hub_download",
  "author: Jane Doe\nauthority: https://login.example.com",
  "git@github.com:owner/repo.git and https://github.com/owner/repo.git",
  "image sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
  "secret_name: my-app-secret",
  "export API_KEY=${API_KEY}",
  "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
  "The ghp_ prefix marks a personal token; eyJ starts a JWT.",
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "type Options = { password?: string; token: string | undefined }",
  "const secretKey = await loadSecretKey();",
  "password_reset_url: https://example.com/reset",
  // Hashes and ids that share the alphabets of tokens.
  "commit 9fceb02d0ae598e95dc970b74767f19372d61af8, tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
  "trace 550e8400-e29b-41d4-a716-446655440000 span 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
  '"lodash": { "version": "4.17.21", "md5": "d41d8cd98f00b204e9800998ecf8427e" }',
  'resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c"',
  'checksum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
  '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs817LbTxx9ISKEPxhZcgQzyRtRq=="',
  "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=",
  // base64 of ordinary text.
  "SGVsbG8sIFdvcmxkISBUaGlzIGlzIGp1c3QgYSBzZW50ZW5jZSBpbiBiYXNlNjQu",
  // URLs without credentials.
  "redis://cache.internal:6379/0 postgres://db.internal:5432/app amqp://rabbit:5672/ mongodb+srv://cluster0.example.net/db",
  "ssh://git@github.com/o/r.git https://deploy@example.com/repo http://[::1]:8080/health mailto:ops@example.com",
  "export REDIS_URL=redis://:${REDIS_PASSWORD}@cache:6379/0",
  // `password`, `login` and `machine` as words.
  "Enter your login name and password to continue; the password must be 12 characters.",
  "On the build machine, use the login form password field, then open your account password settings.",
  "the machine learning login page password requirements",
  "log in with login admin password admin, then change it",
  // Commands whose -u takes no credential.
  'docker run -u 1000:1000 node:20 && sort -u names.txt && curl -u "$USER:$TOKEN" https://example.com',
  // Twilio look-alikes: a SID alone is redacted elsewhere, a bare 32-hex is not a token.
  "the account SID starts with AC and an auth token is 32 hex characters",
  // base32 runs shaped like legacy Azure DevOps PATs, with nothing that names one.
  'sha256 = "0v8ab8d3c0pm3cv7xrlr9vv8rl8dv0ichxdalvmsmngjkwh0ap6w";',
  "an unnamed base32 run abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst in a build log",
  "Azure pipeline step abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz: 52 letters, no digit",
];
