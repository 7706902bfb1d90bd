// Signing in with a phone wallet through WalletConnect: the page shows its own QR code, a real WalletConnect
// wallet (the Sign SDK in this process) pairs from it through a local relay, approves, signs the sign-in message,
// and the browser lands on the dashboard. Nothing may reach beyond this machine: WalletConnect's hosted modal,
// Verify, telemetry and explorer are all off, and the test fails if the page or the wallet asks for them.
import { expect, test, type Page } from "@playwright/test";
import { e2eWalletConnectEnv, startLocalRelay, type LocalRelay } from "./walletconnect-relay";
import { startPhoneWallet, type PhoneWallet } from "./walletconnect-wallet";

const projectId = e2eWalletConnectEnv.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID;
const isLocal = (url: string) => ["127.0.0.1", "localhost"].includes(new URL(url).hostname);

let relay: LocalRelay;
let wallet: PhoneWallet;
/** Everything the page or the wallet tried to reach beyond this machine. */
const external: string[] = [];
const realFetch = globalThis.fetch;

test.beforeAll(async () => {
  relay = await startLocalRelay();
  // The wallet's SDK fetches through the global fetch (telemetry, Verify): record and refuse anything remote.
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!isLocal(url)) {
      external.push(`wallet: ${url}`);
      return Promise.reject(new Error(`The test wallet may not reach ${url}`));
    }
    return realFetch(input, init);
  };
});

test.afterAll(async () => {
  globalThis.fetch = realFetch;
  await relay?.close();
});

test.beforeEach(async ({ page }) => {
  external.length = 0;
  wallet = await startPhoneWallet(relay.url, projectId);
  await page.context().route(
    (url) => !isLocal(url.href) && url.protocol !== "data:",
    (route) => {
      external.push(`page: ${route.request().url()}`);
      return route.abort("internetdisconnected");
    },
  );
  // A remote address the page's CSP refuses never reaches the network (nor the route above): count it too.
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) external.push(`page (refused by CSP): ${message.text()}`);
    if (process.env.DEBUG_WC) console.log("[page]", message.type(), message.text());
  });
  page.on("websocket", (socket) => {
    if (!socket.url().startsWith(relay.url)) external.push(`page websocket: ${socket.url()}`);
  });
});

test.afterEach(async () => {
  if (process.env.DEBUG_WC) console.log("relay methods", relay.methods, "external", external);
  await wallet?.close();
});

/** Chooses WalletConnect and reads the pairing URI off the QR code the page drew. */
async function openQrCode(page: Page): Promise<string> {
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "WalletConnect" }).click();
  const dialog = page.getByRole("dialog", { name: "Scan with your phone wallet" });
  const qrCode = dialog.getByRole("img", { name: "WalletConnect QR code" });
  await expect(qrCode).toBeVisible();
  const uri = await qrCode.getAttribute("data-walletconnect-uri");
  expect(uri).toMatch(/^wc:[0-9a-f]{64}@2\?/);
  // The image is the code of that URI, drawn here (a data: URL, not a hosted QR service).
  expect(await qrCode.getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
  return uri as string;
}

test("a phone wallet signs in by scanning the QR code, through the local relay", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const uri = await openQrCode(page);

  // "Copy link" gives the same URI, for a wallet on another device or a desktop wallet app.
  const dialog = page.getByRole("dialog", { name: "Scan with your phone wallet" });
  await dialog.getByRole("button", { name: "Copy link" }).click();
  // The copy is written after the click has returned.
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(uri);

  await wallet.pair(uri);

  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible({ timeout: 30_000 });
  const session = await page.request.get("/api/auth/session");
  expect(session.status()).toBe(200);
  expect(((await session.json()) as { address: string }).address.toLowerCase()).toBe(wallet.address.toLowerCase());
  // The sign-in message was signed in the phone wallet, through the WalletConnect session.
  expect(wallet.requests).toContain("personal_sign");
  expect(relay.methods).toEqual(expect.arrayContaining(["irn_subscribe", "wc_proposeSession", "wc_approveSession"]));
  expect(relay.unknownMethods).toEqual([]);
  expect(external).toEqual([]);
});

test("a session rejected in the phone wallet is explained, and nothing is signed", async ({ page }) => {
  wallet.rejectSessions(true);
  const uri = await openQrCode(page);
  await wallet.pair(uri);

  await expect(page.getByRole("dialog")).toBeHidden();
  const alert = page.getByRole("alert").filter({ hasText: "Request rejected" });
  await expect(alert).toContainText("You rejected the request in your wallet");
  expect(wallet.requests).toEqual([]);
  // The visitor can try again at once: a new code.
  await page.getByRole("button", { name: "WalletConnect" }).click();
  await expect(page.getByRole("img", { name: "WalletConnect QR code" })).toBeVisible();
  expect(external).toEqual([]);
});

test("closing the QR dialog cancels quietly; the page offers the wallets again", async ({ page }) => {
  await openQrCode(page);
  await page.getByRole("button", { name: "Close" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(page.getByRole("button", { name: "WalletConnect" })).toBeEnabled();
  await expect(page.getByRole("alert").filter({ hasText: /rejected|failed|expired|unreachable/ })).toHaveCount(0);
  expect(external).toEqual([]);
});

test("an unreachable relay is explained instead of a code that never comes", async ({ page }) => {
  await relay.close();
  try {
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "WalletConnect" }).click();
    await expect(page.getByRole("dialog", { name: "Scan with your phone wallet" })).toBeVisible();
    const alert = page.getByRole("alert").filter({ hasText: "WalletConnect is unreachable" });
    await expect(alert).toContainText("could not reach the WalletConnect relay", { timeout: 30_000 });
    await expect(page.getByRole("dialog")).toBeHidden();
    await expect(page.getByRole("button", { name: "WalletConnect" })).toBeEnabled();
  } finally {
    relay = await startLocalRelay();
  }
  expect(external).toEqual([]);
});
