import { describe, expect, it } from "vitest";
import { nodeStartCommand, nodeStartParts, shellWord } from "./node-command";

const token = "node_Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg";

describe("the command that starts a developer's node", () => {
  it("runs the published package with the server and the token (CONTRACT §14)", () => {
    expect(nodeStartCommand({ url: "https://api.example.com", token })).toBe(
      `npx @execution-network/node --url https://api.example.com --token ${token}`,
    );
  });

  it("names the node's services and concurrency when it has them", () => {
    expect(
      nodeStartCommand({
        url: "http://127.0.0.1:3000",
        token,
        serviceIds: ["token-count", "image-ocr"],
        concurrency: 4,
      }),
    ).toBe(
      `npx @execution-network/node --url http://127.0.0.1:3000 --token ${token} --services token-count,image-ocr --concurrency 4`,
    );
  });

  it("in a checkout of this project it is the npm script with the same flags", () => {
    expect(nodeStartCommand({ url: "http://127.0.0.1:3000", token, concurrency: 2 }, "checkout")).toBe(
      `npm run node -- --url http://127.0.0.1:3000 --token ${token} --concurrency 2`,
    );
  });

  it("comes in parts that keep each flag with its value, so a screen wraps only between them", () => {
    const parts = nodeStartParts({ url: "https://api.example.com", token, serviceIds: ["text-sentiment"] });
    expect(parts).toEqual([
      "npx @execution-network/node",
      "--url https://api.example.com",
      `--token ${token}`,
      "--services text-sentiment",
    ]);
    expect(parts.join(" ")).toBe(
      nodeStartCommand({ url: "https://api.example.com", token, serviceIds: ["text-sentiment"] }),
    );
  });

  it("quotes a value a shell would split or expand, and leaves a placeholder as it is", () => {
    expect(shellWord("https://example.com/a b")).toBe("'https://example.com/a b'");
    expect(shellWord("x;rm -rf ~")).toBe("'x;rm -rf ~'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord("$HOME")).toBe("'$HOME'");
    expect(shellWord("node_…")).toBe("node_…");
    expect(nodeStartCommand({ url: "http://host/a b", token: "node_…" })).toBe(
      "npx @execution-network/node --url 'http://host/a b' --token node_…",
    );
  });
});
