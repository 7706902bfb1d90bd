// A failed delivery's reason in words a developer can act on. Refusals by policy need them: the code alone
// does not say what to change (the other codes, BAD_STATUS beside the receiver's status, TIMEOUT,
// CONNECTION_FAILED: …, already say what happened at the receiver).
import { webhookDestinationForbidden } from "@/lib/contract/vocabulary";

export interface DeliveryProblem {
  /** Short: fits the deliveries table's status cell. */
  title: string;
  /** Why, and what to change. */
  message: string;
}

const notSent = "Nothing was sent and it will not be retried (waiting does not change the policy).";
const whatToChange = "Use a public HTTPS URL: add an endpoint with it, then delete this one.";
const localTesting =
  "To test with a receiver on your machine, run your own server with WEBHOOK_ALLOWED_HOSTS=127.0.0.1,localhost (for development only), or expose the receiver at a public https URL (a tunnel).";

/**
 * What `lastError` means for the endpoint at `endpointUrl` (unknown on a job's page, which lists the deliveries
 * of several endpoints), or null when the code needs no explaining. At send time the policy refuses an https
 * URL only for the addresses its host resolves to, and an http URL only for its host not being allowed.
 */
export function describeDeliveryError(lastError: string | null, endpointUrl?: string): DeliveryProblem | null {
  if (lastError !== webhookDestinationForbidden) return null;
  const protocol = endpointUrl && URL.canParse(endpointUrl) ? new URL(endpointUrl).protocol : undefined;
  if (protocol === "https:") {
    return {
      title: "Refused: resolves to a private address",
      message: `This endpoint's host resolves to a private address (loopback, a private network, link-local or another reserved range), which webhooks never reach. ${notSent} ${whatToChange}`,
    };
  }
  if (protocol === "http:") {
    return {
      title: "Refused: plain http to this host",
      message: `Webhooks go over https; plain http reaches only hosts this server's operator allows (WEBHOOK_ALLOWED_HOSTS), and this host is not one of them. ${notSent} ${whatToChange} ${localTesting}`,
    };
  }
  return {
    title: "Refused: destination not allowed",
    message: `The endpoint resolves to a private address, or uses plain http to a host this server does not allow. ${notSent} ${whatToChange}`,
  };
}
