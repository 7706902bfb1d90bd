import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { ServicesCatalog } from "@/components/services/services-catalog";

export const metadata: Metadata = { title: "Services" };

export default function ServicesPage() {
  return (
    <>
      <PageHeader
        title="Services"
        description={
          <>
            The execution services you can run. Submit a job with{" "}
            <code className="font-mono">POST /api/marketplace/services/:serviceId/execute</code> and an input matching the
            service&apos;s schema.
          </>
        }
      />
      <ServicesCatalog />
    </>
  );
}
