// Rotates the receipt signing key: `npm run receipts -- rotate`. The new address signs from now on (on every
// instance at once); the old one is kept in GET /api/receipts/signers' `previous`, so its receipts still verify.
// With RECEIPT_SIGNING_KEY set, rotate by changing the variable instead. Works whether the server runs or not.
import { fail, positional, runOperator } from "./cli";

const [action] = positional();
if (action !== "rotate") fail("Usage: npm run receipts -- rotate");
void runOperator("receipts.rotate", {});
