/** @type {import('jest').Config} */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "es6" } },
    ],
  },
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  // Tests that start bin/agentforge.js run the compiled CLI: rebuild it from the current sources.
  globalSetup: "<rootDir>/test/support/build-compiled-cli.ts",
  cacheDirectory: "<rootDir>/.cache/jest",
  testTimeout: 30000,
  maxWorkers: 2,
};
