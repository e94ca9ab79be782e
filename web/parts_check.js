// make lint-web: parts.js's pure logic, run in Node's vm beside words.js (no DOM). Each check's
// expectation comes from the spec (README's transition table, docs/WEB.md), not from the code.
// Prints one line per failure; exits 1 when any failed.
const vm = require("vm"), fs = require("fs");
const ctx = vm.createContext({});
vm.runInContext(fs.readFileSync(process.argv[2], "utf8") + "\n;globalThis.P = ISLET_PARTS;", ctx, {filename: "app.js"});
const P = ctx.P, bad = [];
const eq = (what, got, want) => { if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`); };
const act = (kind, phase) => ({attributes: {kind}, phase});

// The verb table: an until activity has no pause, resume or toggle; pause is refused while
// paused or complete, resume unless paused.
eq("until offers", P.verbs(act("until", "running")).offered.sort(), ["end", "expand", "reset"]);
eq("until refuses nothing it offers", P.verbs(act("until", "running")).refused, []);
eq("countdown offers", P.verbs(act("countdown", "running")).offered.length, 6);
eq("running refuses", P.verbs(act("countdown", "running")).refused, ["resume"]);
eq("paused refuses", P.verbs(act("countdown", "paused")).refused, ["pause"]);
eq("cycle_end refuses", P.verbs(act("countdown", "cycle_end")).refused, ["resume"]);
eq("complete refuses", P.verbs(act("countdown", "complete")).refused.sort(), ["pause", "resume"]);
eq("stopwatch paused", P.verbs(act("stopwatch", "paused")).refused, ["pause"]);

eq("title running", P.tabTitle("9:13", "running"), "9:13 \u25b6 Islet");
eq("title paused", P.tabTitle("9:13", "paused"), "9:13 \u23f8 Islet");
eq("title idle", P.tabTitle("", undefined), "Islet");
eq("title unknown phase", P.tabTitle("9:13", "weird"), "Islet");

eq("quick default", P.quickLengths(null), [5, 10, 20]);
eq("quick stored", P.quickLengths("[7,5]"), [7, 5, 10]);
for (const s of ["[1e9]", "[0]", "[5,5]", "[1,2,3,4]", "{}", "[\"5\"]", "nope", "[" + "1,".repeat(100) + "1]"]) eq("quick refuses " + s.slice(0, 12), P.quickLengths(s), [5, 10, 20]);
eq("remember", P.rememberLength([7, 5, 10], 5), [5, 7, 10]);
eq("remember new", P.rememberLength([7, 5, 10], 3), [3, 7, 5]);
eq("remember out of bounds", P.rememberLength([7, 5, 10], 481), [7, 5, 10]);

const n = P.nightView({night: true, contrast: 0, window: "22:30-07:00", next_night: false, next_local: "07:00"});
eq("night", [n.on, n.dim, n.window, n.next], [true, 0.35, "22:30-07:00", {night: false, at: "07:00"}]);
eq("day is not dimmed", P.nightView({night: false, contrast: 0}).dim, 1);
eq("full contrast", P.nightView({night: true, contrast: 255}).dim, 1);
eq("a bad next_local", P.nightView({night: true, contrast: 9, next_night: true, next_local: "25:00"}).next, null);
eq("no block", P.nightView(undefined), null);

eq("alerts", P.alertsOf({alerts: [{timer: "t", kind: "completed"}, {timer: 5, kind: "completed"}, {timer: "u", kind: "boom"}]}), [{timer: "t", kind: "completed"}]);
eq("alerts bounded", P.alertsOf({alerts: Array(100).fill({timer: "t", kind: "alerted"})}).length, 32);
eq("no alerts", P.alertsOf({}), []);

for (const b of bad) console.log(b);
process.exit(bad.length ? 1 : 0);
