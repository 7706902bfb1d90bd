// Someone opens a dashboard page while signed out (a link from a teammate, a bookmark, a session that ended
// overnight): signing in takes them to that page, query included, and never to another site.
import { expect, test, type Page } from "@playwright/test";
import { runJob, signInNewDeveloper } from "./dashboard-session";
import { testWalletName } from "./test-wallet";

/** Signs the injected wallet in from the sign-in page (connecting it again if the cookies went with it). */
async function signInFromHere(page: Page) {
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.getByRole("button", { name: new RegExp(`^(${testWalletName}|Sign in as 0x)`) }).click();
}

test("a signed-out visitor who opens a job's page signs in and lands on that page, never on another site", async ({
  page,
  baseURL,
}) => {
  const dev = await signInNewDeveloper(page, baseURL as string, "Returning Visitor");
  const job = await runJob(page.request, dev.apiKey, "text-sentiment", { text: "Back where I was. Good." });
  const jobPage = `/jobs/${job.jobId}?from=bookmark`;

  await test.step("the job's page, opened signed out, asks to sign in and then shows that job", async () => {
    await page.context().clearCookies();
    await page.goto(jobPage);
    await expect(page).toHaveURL(`/sign-in?next=${encodeURIComponent(jobPage)}`);
    await signInFromHere(page);
    await expect(page).toHaveURL(jobPage);
    await expect(page.getByText(job.jobId).first()).toBeVisible();
    await expect(page.getByTestId("job-status")).toBeVisible();
  });

  await test.step("a list page keeps its filters through sign-in", async () => {
    await page.context().clearCookies();
    await page.goto("/jobs?status=failed&page=1");
    await expect(page).toHaveURL(`/sign-in?next=${encodeURIComponent("/jobs?status=failed&page=1")}`);
    await signInFromHere(page);
    await expect(page).toHaveURL("/jobs?status=failed&page=1");
    await expect(page.getByRole("heading", { level: 1, name: "Jobs" })).toBeVisible();
  });

  await test.step("a path that names another host is never where sign-in leads", async () => {
    for (const hostile of ["//evil.example/keys", "/\\evil.example/keys"]) {
      await page.context().clearCookies();
      await page.goto(`${baseURL}${hostile}`);
      await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
      const next = new URL(page.url()).searchParams.get("next");
      expect(next === null || (next.startsWith("/") && !next.startsWith("//")), `next=${next}`).toBe(true);
      await signInFromHere(page);
      // Signed in only once it has left the sign-in page (which is on this host too): clearing the cookies
      // before then would let the session arrive after, and the next path would open signed in.
      await expect(page).toHaveURL((url) => url.origin === baseURL && url.pathname !== "/sign-in");
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    }
  });

  await test.step("a sign-in link whose next names another site signs in to the overview", async () => {
    for (const hostile of ["https://evil.example/keys", "//evil.example/keys", "/\\evil.example/keys"]) {
      await page.context().clearCookies();
      await page.goto(`/sign-in?next=${encodeURIComponent(hostile)}`);
      await signInFromHere(page);
      await expect(page).toHaveURL("/overview");
      // Signed in already, the same link goes straight to the overview too.
      await page.goto(`/sign-in?next=${encodeURIComponent(hostile)}`);
      await expect(page).toHaveURL("/overview");
    }
  });
});
