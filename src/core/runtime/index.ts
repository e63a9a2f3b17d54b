/** The public face of this part of the core: what the doors may import. */
export { createRuntime } from "./create-runtime.js";
export { runDoctorChecks, type DoctorCheck } from "./run-doctor-checks.js";
export { probeModelEndpoint, type ModelEndpointProbe } from "./probe-model-endpoint.js";
export { RuntimeError } from "./runtime-error.js";
export type { ModelReport } from "./check-model.js";
