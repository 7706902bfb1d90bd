// The test router answers around the route handlers as `next start` does: the same specification the
// real-server suite runs against Next (tests/support/next-http-spec.ts).
import { describeHttpAsNextServesIt } from "../support/next-http-spec";
import { startTestServer } from "../support/test-server";

describeHttpAsNextServesIt("the test router", (env) => startTestServer({ embeddedNodes: 0, env }));
