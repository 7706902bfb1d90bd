// Every built-in service's example is a request its input schema accepts, so the playground starts from
// input the API would take.
import { describe, expect, it } from "vitest";
import { catalog, serviceInputs } from "./catalog";
import { exampleInput } from "./service-examples";

describe("service examples", () => {
  it.each(catalog.map((c) => c.serviceId))("%s's example passes the service's own input check", async (serviceId) => {
    const parsed = serviceInputs[serviceId].safeParse(await exampleInput(serviceId));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it("image-ocr's example is the committed sample PNG as a data: URL", async () => {
    const { image } = (await exampleInput("image-ocr")) as { image: string };
    expect(image).toMatch(/^data:image\/png;base64,iVBOR/);
  });
});
