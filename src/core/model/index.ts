/** The public face of this part of the core: what the doors may import. */
export { type ModelClient } from "./model-types.js";
export { probeModelServer } from "./probe-model-server.js";
export type { ModelServerFacts, ModelServerProbe, ProbeModelServerOptions } from "./probe-model-server.js";
export { addCostUsd, formatCostUsd, readCostUsd, type CostUsd } from "./cost-usd.js";
