/** The public face of this part of the core: what the doors may import. */
export { PLAN_MODE_MAX_TURNS } from "./create-session.js";
