// The routes server.mjs serves beside Next.js's router (lib/http/direct-routes.ts): the two submission
// routes, the request an app sends for every job. Each is the handler its route file exports, so both
// routers run the same code; tests/integration/direct-routes.test.ts checks that Next.js's router would
// send every request they match to that same file.
import { POST as submitJob } from "./developers/jobs/route";
import { POST as executeService } from "./marketplace/services/[id]/execute/route";

export const directRoutes = [executeService, submitJob];
