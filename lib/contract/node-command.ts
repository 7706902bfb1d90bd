// The command that starts a developer's node (CONTRACT §14), one way for the token dialog, the Nodes page and
// the docs: `npx @execution-network/node --url <server> --token node_… [--services a,b] [--concurrency n]` on any
// machine, or `npm run node -- …` in a checkout of this project. It is built as parts (the program, then one
// part per flag with its value) so a screen may wrap it between flags and never inside a URL or a token.

export const nodePackage = "@execution-network/node";

/** Where the command runs: any machine with Node.js (the published package), or a checkout of this project. */
export type NodeRunner = "npx" | "checkout";

export interface NodeCommandOptions {
  url: string;
  token: string;
  serviceIds?: readonly string[];
  concurrency?: number;
}

// Characters a POSIX shell takes literally in a word ("…" marks a placeholder such as node_…).
const plainWord = /^[\w@%+=:,./…-]+$/u;

/** A word as a POSIX shell reads it back unchanged: as it is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return plainWord.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The program, then "--flag value" per option, in the order the node's usage line gives them. */
export function nodeStartParts(options: NodeCommandOptions, runner: NodeRunner = "npx"): string[] {
  const flags: [string, string][] = [
    ["--url", options.url],
    ["--token", options.token],
  ];
  if (options.serviceIds && options.serviceIds.length > 0) flags.push(["--services", options.serviceIds.join(",")]);
  if (options.concurrency !== undefined) flags.push(["--concurrency", String(options.concurrency)]);
  const program = runner === "npx" ? `npx ${nodePackage}` : "npm run node --";
  return [program, ...flags.map(([flag, value]) => `${flag} ${shellWord(value)}`)];
}

/** The exact command, on one line, as copied. */
export function nodeStartCommand(options: NodeCommandOptions, runner: NodeRunner = "npx"): string {
  return nodeStartParts(options, runner).join(" ");
}
