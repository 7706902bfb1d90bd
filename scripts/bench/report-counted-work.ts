// Report part, with `--baseline` on PostgreSQL: the database work each tree did per job, counted rather than
// timed. Timings of one round drift by ±20% on a shared 2-core machine; rows, WAL and statements per job do
// not, so a difference in them is a real one whatever the rounds' jobs/s say.
import { rowsPerJob } from "./report-work";
import type { BaselineResults, NodesResults, TreeResults } from "./results";
import { median, ms, nodesLabel, ratio, table } from "./stats";

interface CountedWork {
  rows: number;
  walKiB: number;
  statements: number;
  executionMs: number;
}

function countedWork(n: NodesResults): CountedWork | undefined {
  const d = n.database;
  if (!d) return undefined;
  return {
    rows: d.jobsInDatabase > 0 ? rowsPerJob(d.tableWrites, d.jobsInDatabase) : Number.NaN,
    walKiB: d.walBytesPerJob / 1024,
    statements: d.statements ? d.statements.calls / n.burst.jobs : Number.NaN,
    executionMs: d.statements ? d.statements.totalMs / n.burst.jobs : Number.NaN,
  };
}

const fixed = (v: number, digits: number) => (Number.isFinite(v) ? v.toFixed(digits) : "n/a");

export function countedWorkSection(b: BaselineResults, phases: NodesResults[]): string {
  const rows = phases.flatMap((phase, i) => {
    const of = (pick: (round: BaselineResults["rounds"][number]) => TreeResults) =>
      b.rounds.map((round) => pick(round).nodes[i]).map(countedWork);
    const [ours, theirs] = [of((r) => r.here), of((r) => r.baseline)];
    if (ours.every((w) => w === undefined)) return [];
    const mid = (works: (CountedWork | undefined)[], key: keyof CountedWork) =>
      median(works.map((w) => w?.[key] ?? Number.NaN));
    const label = `harness, ${nodesLabel(phase.nodes)}`;
    const row = (tree: string, works: (CountedWork | undefined)[]) => [
      `${label}, ${tree}`,
      fixed(mid(works, "rows"), 1),
      `${fixed(mid(works, "walKiB"), 2)} KiB`,
      fixed(mid(works, "statements"), 2),
      ms(mid(works, "executionMs")),
    ];
    const ratios = (["rows", "walKiB", "statements", "executionMs"] as const).map((key) =>
      ratio(mid(ours, key), mid(theirs, key)),
    );
    return [row("this tree", ours), row("baseline", theirs), [`${label}, this tree ÷ baseline`, ...ratios]];
  });
  if (rows.length === 0) return "";
  return [
    "",
    "Database work per job (median over the rounds): rows written over the database's life ÷ its jobs, WAL over " +
      "the burst ÷ its jobs (the whole cluster's: on a shared server it includes whatever else ran), and, with " +
      "`--private-postgres`, top-level statements over the burst ÷ its jobs (the bench's own polling of the job " +
      "list included). These are counts, which do not drift with the machine. The execution time per job is not: it " +
      "includes the submissions' waits on the developer's account row, which grow with the load.",
    "",
    table(["phase, tree", "rows per job", "WAL per job", "statements per job", "execution per job"], rows),
  ].join("\n");
}
