// A completed job's receipt on its page: fetched with the deployment's signers, then verified here in the browser
// (viem, lib/contract/receipts.ts) — what the page shows is what this browser checked, not what the server says.
import { useQuery } from "@tanstack/react-query";
import { verifyReceiptFor, type Receipt, type ReceiptVerdict } from "@/lib/contract/receipts";
import { apiFetch, apiFetchWithHeaders } from "./fetch-api";
import type { ExecutionJob } from "./types";

export const receiptKeys = {
  /** A receipt never changes once issued: its key is the job's. */
  job: (jobId: string) => ["receipts", "job", jobId] as const,
};

export interface CheckedReceipt {
  receipt: Receipt;
  /** The receipt exactly as the API answered it: what Download JSON saves. */
  json: string;
  verdict: ReceiptVerdict;
}

/** The receipt of `job` (completed) and this browser's verdict on it against GET /api/receipts/signers. */
export function useCheckedReceipt(job: ExecutionJob) {
  return useQuery({
    queryKey: receiptKeys.job(job.jobId),
    queryFn: async ({ signal }): Promise<CheckedReceipt> => {
      const [answered, signers] = await Promise.all([
        apiFetchWithHeaders<Receipt>(`/api/developers/jobs/${encodeURIComponent(job.jobId)}/receipt`, { signal }),
        apiFetch<{ current: string; previous: string[] }>("/api/receipts/signers", { signal }),
      ]);
      const receipt = answered.body;
      const verdict = await verifyReceiptFor(job, receipt, [signers.current, ...signers.previous]);
      return { receipt, json: answered.text, verdict };
    },
    staleTime: Infinity,
  });
}
