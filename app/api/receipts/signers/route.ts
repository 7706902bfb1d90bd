import { listReceiptSigners } from "@/lib/domain/receipt-signers";
import { withApi } from "@/lib/http/api";
import { routes } from "@/lib/http/routes";

export const GET = withApi(routes.receiptSigners, async (_req, { json }) => json(await listReceiptSigners()));

export * from "@/lib/http/other-methods";
