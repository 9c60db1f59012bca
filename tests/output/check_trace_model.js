// Load a `bprint export --format=chrome` file with @tracerbench/trace-model
// (the npm package; NODE_PATH points to it) and check its model against
// `bprint report -n`:
//   node check_trace_model.js TRACE.json REPORT.txt EXPORT_SUMMARY
// The model must build; its one process must hold one thread per thread
// of the report, each named as the report names it, and as many events
// (instant events that carry a message) as the report has lines.
"use strict";
const fs = require("fs");
const { buildModel } = require("@tracerbench/trace-model");

let fails = 0;
const fail = (m) => { fails++; console.log("FAIL: " + m); };
const ok = (m) => console.log("ok: " + m);

const [json, reportPath, summaryPath] = process.argv.slice(2);
let model;
try {
  model = buildModel(JSON.parse(fs.readFileSync(json, "utf8")));
} catch (e) {
  console.log("FAIL: @tracerbench/trace-model cannot load it: " + e.stack);
  process.exit(1);
}
ok("the model builds");

// "  comm-tid   [cpu] secs: func: message"; comm may hold '-' and spaces
// (report's lines that say where records were lost are not records)
const lines = fs.readFileSync(reportPath, "latin1").split("\n")
  .filter((l) => l.length && !/: \[\d+ records? lost/.test(l));
const want = new Map();
for (const l of lines) {
  const m = /^ *(.*)-(\d+) +\[[^\]]*\] +\d+\.\d+: /.exec(l);
  if (!m) { fail("report line not understood: " + l); continue; }
  const tid = Number(m[2]);
  const t = want.get(tid) || { name: Buffer.from(m[1], "latin1").toString("utf8"), n: 0 };
  t.n++;
  want.set(tid, t);
}
if (model.processes.length !== 1) fail(model.processes.length + " processes");
let total = 0;
for (const p of model.processes) {
  for (const th of p.threads) {
    const w = want.get(th.id);
    const n = th.events.filter((e) => e.args && e.args.msg !== undefined).length;
    total += n;
    if (!w) { fail("thread " + th.id + " is not in the report"); continue; }
    if (th.name !== w.name) fail("thread " + th.id + " named " + th.name + ", not " + w.name);
    if (n !== w.n) fail("thread " + th.id + ": " + n + " events, the report has " + w.n);
    want.delete(th.id);
  }
}
if (want.size) fail("threads missing from the model: " + [...want.keys()].join(" "));
if (total !== lines.length) fail(total + " events in the model, " + lines.length + " records");
else ok(total + " events in " + model.processes[0].threads.length + " named threads");
const lost = model.events.filter((e) => e.name === "records lost")
  .reduce((s, e) => s + e.args.lost, 0);
const wantLost = Number(/(\d+) lost/.exec(fs.readFileSync(summaryPath, "utf8"))[1]);
if (lost !== wantLost) fail("lost " + lost + ", the exporter says " + wantLost);
else ok("lost: " + lost);
process.exit(fails ? 1 : 0);
