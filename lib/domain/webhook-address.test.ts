import { describe, expect, it } from "vitest";
import { checkWebhookUrl, forbiddenRange } from "./webhook-address";

describe("the webhook address classifier", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["169.254.0.1", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.127.255.254", "carrierGradeNat"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456:789a::1", "uniqueLocal"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["[::ffff:192.168.0.1]", "private"],
    ["::127.0.0.1", "loopback"],
    ["::808:808", "ipv4Compatible"],
    ["64:ff9b::7f00:1", "rfc6052"],
    ["2002:7f00:1::", "6to4"],
  ])("refuses %s (%s)", (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:2800:220:1:248:1893:25c8:1946",
    "::ffff:8.8.8.8",
  ])("lets public unicast %s through", (address) => {
    expect(forbiddenRange(address)).toBeNull();
  });

  it("treats what is not an address as forbidden", () => {
    expect(forbiddenRange("example.com")).toBe("invalid");
  });
});

describe("webhook URLs at registration", () => {
  const refused = (url: string, allowed: string[] = []) => {
    try {
      checkWebhookUrl(url, allowed);
    } catch (error) {
      return (error as { code?: string }).code;
    }
    return "accepted";
  };

  it("accepts https URLs with public or unresolved host names", () => {
    expect(checkWebhookUrl("https://hooks.example.com/in?x=1#frag", [])).toBe("https://hooks.example.com/in?x=1");
    expect(refused("https://localhost:8443/hook")).toBe("accepted");
  });

  it("refuses http, credentials and literal forbidden addresses", () => {
    expect(refused("http://hooks.example.com/")).toBe("VALIDATION_ERROR");
    expect(refused("ftp://hooks.example.com/")).toBe("VALIDATION_ERROR");
    expect(refused("https://user:pw@hooks.example.com/")).toBe("VALIDATION_ERROR");
    expect(refused("https://127.0.0.1/")).toBe("VALIDATION_ERROR");
    expect(refused("https://0x7f.1/")).toBe("VALIDATION_ERROR");
    expect(refused("https://2130706433/")).toBe("VALIDATION_ERROR");
    expect(refused("https://[::1]/")).toBe("VALIDATION_ERROR");
    expect(refused("https://[::ffff:169.254.169.254]/")).toBe("VALIDATION_ERROR");
    expect(refused("https://169.254.169.254/latest/meta-data")).toBe("VALIDATION_ERROR");
    expect(refused("not a url")).toBe("VALIDATION_ERROR");
  });

  it("lets allowed hosts use http and private addresses", () => {
    expect(refused("http://127.0.0.1:9000/hook", ["127.0.0.1"])).toBe("accepted");
    expect(refused("http://[::1]:9000/hook", ["::1"])).toBe("accepted");
    expect(refused("http://127.0.0.2:9000/hook", ["127.0.0.1"])).toBe("VALIDATION_ERROR");
    expect(refused("https://user@127.0.0.1/", ["127.0.0.1"])).toBe("VALIDATION_ERROR");
  });
});
