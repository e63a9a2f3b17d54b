import { describe, expect, it } from "@jest/globals";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { BASE62, createRandom } from "./secret-corpus.js";

/**
 * Names in which the credential word is fused to the word before it, with no separator or case
 * change to split on: `PGPASSWORD` (libpq), `NPMTOKEN`, `dbpassword`, `clientsecret`.
 */
const random = createRandom(1414);
const value = random(BASE62, 20);
const marker = "[REDACTED:secret-assignment]";
const redactor = createRedactor();

describe("credential words fused into a longer name", () => {
  it.each([
    ["libpq's password variable", `export PGPASSWORD=${value}`, `export PGPASSWORD=${marker}`],
    ["a database password key", `dbpassword: ${value}`, `dbpassword: ${marker}`],
    ["an upper-case token variable", `NPMTOKEN=${value}`, `NPMTOKEN=${marker}`],
    ["a JSON client secret", `{"clientsecret": "${value}"}`, `{"clientsecret": "${marker}"}`],
    ["a passphrase", `GPGPASSPHRASE='${value}'`, `GPGPASSPHRASE='${marker}'`],
    ["an API key", `stripeapikey=${value}`, `stripeapikey=${marker}`],
  ])("%s", (_name, input, expected) => {
    expect(redactor.redact(input)).toBe(expected);
  });

  it.each([
    ["a placeholder", "PGPASSWORD=$PGPASS"],
    ["a word that only starts with the credential word", `passwordless=${value}`],
    ["a word that only contains it", `tokenizer=${value}`],
    ["a name that describes the credential", `pgpassword_file=${value}`],
  ])("leaves %s alone", (_name, input) => {
    expect(redactor.redact(input)).toBe(input);
  });
});
