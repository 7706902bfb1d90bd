import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { ApiKeysPanel } from "@/components/keys/api-keys-panel";

export const metadata: Metadata = { title: "API keys" };

export default function ApiKeysPage() {
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate your code with the x-api-key header. Scopes limit what each key can do; rotate or revoke a key at any time."
      />
      <ApiKeysPanel />
    </>
  );
}
