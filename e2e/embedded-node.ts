// The journeys' server runs one embedded node with this many slots (playwright.config.ts sets it): a journey
// that must keep every slot busy takes the number from here, not from the product's default.
export const e2eNodeSlots = 8;
