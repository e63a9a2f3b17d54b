import { slugify } from "./src/slugify.js";

const cases = [
  ["Hello World", "hello-world"],
  ["  Many   spaces here ", "many-spaces-here"],
];
let failed = 0;
for (const [input, expected] of cases) {
  const actual = slugify(input);
  if (actual !== expected) {
    failed += 1;
    console.error(`slugify(${JSON.stringify(input)}) = ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}
if (failed > 0) process.exit(1);
console.log(`${cases.length} passed`);
