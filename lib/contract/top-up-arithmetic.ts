// Prices of credits in the payment token, on integers only (bigint base units, never floats): the server
// credits with these and the Credits page quotes with them, so what the page promises is what is credited.

/** credits = floor(tokenAmount × creditsPerToken / 10^decimals). */
export function creditsForTokenAmount(tokenAmount: bigint, creditsPerToken: bigint, decimals: number): bigint {
  return (tokenAmount * creditsPerToken) / 10n ** BigInt(decimals);
}

/** The smallest token amount (base units) that buys `credits`: ceil(credits × 10^decimals / creditsPerToken). */
export function tokenAmountForCredits(credits: bigint, creditsPerToken: bigint, decimals: number): bigint {
  const scaled = credits * 10n ** BigInt(decimals);
  return (scaled + creditsPerToken - 1n) / creditsPerToken;
}

/** Base units as a decimal token amount: 1234500 with 6 decimals → "1.2345". */
export function formatTokenAmount(amount: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const sign = amount < 0n ? "-" : "";
  const magnitude = amount < 0n ? -amount : amount;
  const fraction = decimals === 0 ? "" : (magnitude % unit).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${sign}${magnitude / unit}${fraction ? `.${fraction}` : ""}`;
}
