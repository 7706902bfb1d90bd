// A vitest reporter that names every failed test once more after the run's summary, as its last lines: CI keeps
// only the tail of a run's output, and vitest prints the failures above the summary, so a failure in a run of
// two thousand tests was otherwise reported as a count with no name (the run that failed with "1 failed" and
// nothing more to go on).
import type { Reporter, SerializedError, TestModule } from "vitest/node";

type Failure = { where: string; message: string };

/** The error's message on one line, cut short (a failed query's message starts with its whole statement). */
const oneLine = (message: string): string => message.replace(/\s+/g, " ").trim().slice(0, 300);

/**
 * Every failed test and failed file (a hook or an import that threw) of the run, and every error thrown outside a
 * test (an unhandled rejection fails the run with every test passed), each with its error's message on one line.
 */
function failuresOf(testModules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): Failure[] {
  const failures: Failure[] = unhandled.map((error) => ({
    where: "(outside any test)",
    message: oneLine(error.message),
  }));
  for (const testModule of testModules) {
    const file = `[${testModule.project.name}] ${testModule.relativeModuleId}`;
    for (const error of testModule.errors()) failures.push({ where: file, message: oneLine(error.message) });
    for (const test of testModule.children.allTests("failed")) {
      const [error] = test.result().errors ?? [];
      failures.push({ where: `${file} > ${test.fullName}`, message: oneLine(error?.message ?? "") });
    }
  }
  return failures;
}

export default class FailuresLastReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const failures = failuresOf(testModules, unhandledErrors);
    if (failures.length === 0) return;
    const lines = failures.map(({ where, message }) => `  FAILED ${where}${message ? `\n         ${message}` : ""}`);
    process.stdout.write(`\nFailed (${failures.length}):\n${lines.join("\n")}\n`);
  }
}
