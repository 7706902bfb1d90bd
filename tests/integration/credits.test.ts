import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit, waitForStatus } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { expectError, isoTime } from "../support/expect-error";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 1 });
});
afterAll(() => server.close());

interface CreditEntry {
  entryId: string;
  type: string;
  amount: number;
  balanceAfter: number;
  jobId: string | null;
  description: string;
  createdAt: string;
}
interface CreditHistory {
  data: CreditEntry[];
  pagination: { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
}

async function history(dev: Developer, query = ""): Promise<CreditHistory> {
  const res = await dev.session(`/api/credits/history${query}`);
  expect(res.status).toBe(200);
  return res.json();
}

async function balanceOf(dev: Developer): Promise<number> {
  return (await (await dev.session("/api/credits/balance")).json()).balance;
}

/** Runs `count` token-count jobs (1 credit each) to completion, oldest first. */
async function runJobs(dev: Developer, key: string, count: number): Promise<string[]> {
  const jobIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const job = await submit(dev, key, "token-count", { text: `job number ${i}` });
    jobIds.push(job.jobId);
  }
  for (const jobId of jobIds) expect((await waitForStatus(dev, key, jobId)).status).toBe("completed");
  return jobIds;
}

describe("starter credits", () => {
  it("grants 100 credits on the first sign-in as a single grant entry", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    expect(await history(dev)).toEqual({
      data: [
        {
          entryId: expect.any(String),
          type: "grant",
          amount: 100,
          balanceAfter: 100,
          jobId: null,
          topUpId: null,
          description: expect.stringMatching(/\S/),
          createdAt: isoTime,
        },
      ],
      pagination: {
        page: 1,
        limit: 20,
        total: 1,
        totalPages: 1,
        hasMore: false,
        totalIsLowerBound: false,
        nextCursor: null,
        prevCursor: null,
      },
    });
  });

  it("shows the balance as {balance, currency: credits, updatedAt}", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const res = await dev.session("/api/credits/balance");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ balance: 100, currency: "credits", updatedAt: isoTime });
  });
});

describe("charges", () => {
  it("charges each job's cost when it is created, newest entry first, with a running balanceAfter", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const key = await dev.createApiKey();
    const jobIds = await runJobs(dev, key, 3);

    const { data, pagination } = await history(dev);
    expect(data.map((e) => [e.type, e.amount, e.balanceAfter, e.jobId])).toEqual([
      ["charge", -1, 97, jobIds[2]],
      ["charge", -1, 98, jobIds[1]],
      ["charge", -1, 99, jobIds[0]],
      ["grant", 100, 100, null],
    ]);
    expect(pagination).toMatchObject({ page: 1, limit: 20, total: 4, totalPages: 1, hasMore: false });
    expect(await balanceOf(dev)).toBe(97);
  });
});

describe("history pagination", () => {
  let dev: Developer;
  let all: CreditEntry[];
  beforeAll(async () => {
    dev = await signUpDeveloper(server.baseUrl);
    await runJobs(dev, await dev.createApiKey(), 4);
    all = (await history(dev)).data;
  });

  it("splits the history into pages with page, limit, total, totalPages and hasMore", async () => {
    expect(all).toHaveLength(5);
    const first = await history(dev, "?page=1&limit=2");
    const second = await history(dev, "?page=2&limit=2");
    const third = await history(dev, "?page=3&limit=2");
    expect(first.pagination).toMatchObject({ page: 1, limit: 2, total: 5, totalPages: 3, hasMore: true });
    expect(second.pagination).toMatchObject({ page: 2, limit: 2, total: 5, totalPages: 3, hasMore: true });
    expect(third.pagination).toMatchObject({ page: 3, limit: 2, total: 5, totalPages: 3, hasMore: false });
    expect([...first.data, ...second.data, ...third.data]).toEqual(all);
  });

  it("answers a page past the end with no entries and hasMore false", async () => {
    const past = await history(dev, "?page=9&limit=2");
    expect(past).toMatchObject({
      data: [],
      pagination: { page: 9, limit: 2, total: 5, totalPages: 3, hasMore: false },
    });
  });

  it("accepts the largest limit, 100", async () => {
    expect((await history(dev, "?limit=100")).pagination).toMatchObject({ limit: 100, total: 5, totalPages: 1 });
  });

  it.each(["page=0", "page=-1", "page=x", "page=1.5", "limit=0", "limit=101", "limit=x"])(
    "refuses ?%s with 400 INVALID_REQUEST",
    async (query) => {
      await expectError(await dev.session(`/api/credits/history?${query}`), 400, "INVALID_REQUEST");
    },
  );
});

describe("credentials", () => {
  it("answers the same to the wallet session and to an API key with credits:read", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const key = await dev.createApiKey(["credits:read"]);
    for (const path of ["/api/credits/balance", "/api/credits/history"]) {
      const bySession = await dev.session(path);
      const byKey = await dev.withKey(key, path);
      expect(bySession.status).toBe(200);
      expect(byKey.status).toBe(200);
      expect(await byKey.json()).toEqual(await bySession.json());
    }
  });

  it("answers 401 without any credential", async () => {
    for (const path of ["/api/credits/balance", "/api/credits/history"]) {
      await expectError(await fetch(`${server.baseUrl}${path}`), 401, "INVALID_API_KEY");
    }
  });
});

describe("operator grants", () => {
  it("grantCreditsToAddress adds a grant entry and raises the balance", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const { grantCreditsToAddress } = await import("@/lib/domain/credits");
    await grantCreditsToAddress(dev.address, 50);

    expect(await balanceOf(dev)).toBe(150);
    const [latest, starter] = (await history(dev)).data;
    expect(latest).toMatchObject({
      type: "grant",
      amount: 50,
      balanceAfter: 150,
      jobId: null,
      description: expect.stringMatching(/\S/),
    });
    expect(starter).toMatchObject({ type: "grant", amount: 100, balanceAfter: 100 });
  });

  it("finds the account whatever the case of the address", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const { grantCreditsToAddress } = await import("@/lib/domain/credits");
    await grantCreditsToAddress(dev.address.toLowerCase(), 7, "Hackathon prize");
    expect((await history(dev)).data[0]).toMatchObject({
      type: "grant",
      amount: 7,
      balanceAfter: 107,
      description: "Hackathon prize",
    });
  });
});

describe("usage metrics query", () => {
  let dev: Developer;
  beforeAll(async () => {
    dev = await signUpDeveloper(server.baseUrl);
  });

  it.each([
    "periodStart=yesterday",
    "periodEnd=soon",
    // Valid ISO-8601 / epoch times outside what the database stores are still a bad parameter, not a 500.
    "periodStart=0000-01-01T00:00:00Z",
    "periodEnd=8640000000000000",
  ])("refuses ?%s with 400 INVALID_REQUEST", async (query) => {
    await expectError(await dev.session(`/api/developers/metrics?${query}`), 400, "INVALID_REQUEST");
  });
});
