import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { PageHeader } from "@/components/dashboard/page-header";
import { ServicesCatalog } from "@/components/services/services-catalog";
import { listServices } from "@/lib/domain/services";

export const metadata: Metadata = { title: "Services" };

export default async function ServicesPage() {
  await requireSession();
  const services = await listServices();
  return (
    <>
      <PageHeader
        title="Services"
        description={
          <>
            The execution services you can run. Submit a job with{" "}
            <code className="font-mono">POST /api/marketplace/services/:serviceId/execute</code> and an input matching
            the service&apos;s schema.
          </>
        }
      />
      <ServicesCatalog services={services} />
    </>
  );
}
