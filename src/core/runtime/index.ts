/** The public face of this part of the core: what the doors may import. */
export { createRuntime } from "./create-runtime.js";
export { runDoctorChecks } from "./run-doctor-checks.js";
export { RuntimeError } from "./runtime-error.js";
