import { Context, type Probot } from "probot";
import { parseJournaledPayload, type JournaledDelivery } from "../../queue/open-intake-journal.js";
import { toIntakeEvent, type IntakeEvent } from "./intake-context.js";

function installationIdOf(payload: unknown): number | null {
  if (typeof payload !== "object" || payload === null || !("installation" in payload)) return null;
  const installation = payload.installation;
  if (typeof installation !== "object" || installation === null || !("id" in installation)) return null;
  return typeof installation.id === "number" ? installation.id : null;
}

/**
 * The intake event of a journaled delivery, its payload parsed from the journal's text, with an
 * Octokit for its installation: for triage of a delivery that arrived without a Probot context
 * (after a restart, or from the intake thread).
 */
export async function toJournaledIntakeEvent(
  probot: Probot,
  delivery: JournaledDelivery,
): Promise<IntakeEvent> {
  const payload = parseJournaledPayload(delivery);
  const installationId = installationIdOf(payload);
  if (installationId === null) throw new Error(`delivery ${delivery.id} names no installation`);
  const octokit = await probot.auth(installationId);
  const { id, name } = delivery;
  return toIntakeEvent(new Context({ id, name, payload } as never, octokit, probot.log));
}
