// The package version, sent in the user-agent (a test keeps it equal to package.json's).
export const VERSION = "0.2.0";
