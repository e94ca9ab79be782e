// islet-bench: measures what matters for a display daemon on a small board and writes
// bench.json (see docs/PERFORMANCE.md). `make bench` runs it in release mode.
import IsletSystem

let usage = """
usage: islet-bench [--json PATH] [--quick] [--skip-daemon | --skip-library | --mqtt-only | --web-only] [--bin-dir DIR]
       islet-bench export --frames PATH --json PATH
       islet-bench loop render|flush --passes N
  --json PATH      where to write the figures (default: bench.json)
  --quick          fewer samples (a smoke run, not for the record)
  --skip-daemon    measure only the library, not the isletd process
  --skip-library   measure only the isletd process
  --mqtt-only      measure only the MQTT figures (isletd with Debian's mosquitto)
  --web-only       measure only the web page's figures (isletd with [web] on loopback)
  --bin-dir DIR    where isletd and isletctl are (default: next to islet-bench)
  export           render the 10-minute countdown, write its frames for bench/luma_compare.py
                   and our own frame-to-bus figures on the same frames
  loop             the bare render or flush loop, run under callgrind for instruction counts
"""

// The allocation counter (LD_PRELOAD) is for this process only: isletd and isletctl, started
// below, must run as they do in production.
Posix.removeEnvironment("LD_PRELOAD")

var args = Array(CommandLine.arguments.dropFirst())
var jsonPath = "bench.json"
var framesPath: String?
var quick = false, skipDaemon = false, skipLibrary = false, export = false, mqttOnly = false, webOnly = false
var loop: String?, passes = 1, touchPath: String?
var binDir = Processes.binDirectory()
while !args.isEmpty {
    let a = args.removeFirst()
    func value() -> String {
        guard !args.isEmpty else {
            eprint("islet-bench: \(a) needs a value\n\(usage)")
            ThisProcess.exit(64)
        }
        return args.removeFirst()
    }
    switch a {
    case "--json": jsonPath = value()
    case "--frames": framesPath = value()
    case "--quick": quick = true
    case "--skip-daemon": skipDaemon = true
    case "--skip-library": skipLibrary = true
    case "--mqtt-only": mqttOnly = true; skipLibrary = true
    case "--web-only": webOnly = true; skipLibrary = true
    case "--bin-dir": binDir = value()
    case "export": export = true
    case "loop": loop = value()
    case "touch": touchPath = value()
    case "--passes": passes = Int(value()) ?? 1
    case "-h", "--help": print(usage); ThisProcess.exit(0)
    default:
        eprint("islet-bench: unknown argument \(a)\n\(usage)")
        ThisProcess.exit(64)
    }
}

if let what = loop { ThisProcess.exit(Instructions.loop(what, passes: passes)) }
if let path = touchPath { ThisProcess.exit(OriginLag.touch(path)) }

if export {
    guard let frames = framesPath else {
        eprint("islet-bench: export needs --frames PATH\n\(usage)")
        ThisProcess.exit(64)
    }
    ThisProcess.exit(CompareExport(quick: quick).run(frames: frames, json: jsonPath))
}

let date = Report.today()
var results = Results()
results.note("machine", Machine.describe())
if skipLibrary {
    for k in Key.allCases where !DaemonBench.keys.contains(k) && !MQTTBench.keys.contains(k) && !WebBench.keys.contains(k) {
        results[k] = .missing("skipped (--skip-library)")
    }
} else {
    InProcessBench(quick: quick).run(into: &results)
}
if skipDaemon {
    for k in DaemonBench.keys + MQTTBench.keys + WebBench.keys { results[k] = .missing("skipped (--skip-daemon)") }
} else {
    if webOnly {
        for k in DaemonBench.keys + MQTTBench.keys { results[k] = .missing("skipped (--web-only)") }
        print("islet-bench: the web page, about 35 s…")
        WebBench(bench: DaemonBench(binDir: binDir)).run(into: &results)
    } else if mqttOnly {
        for k in DaemonBench.keys + WebBench.keys { results[k] = .missing("skipped (--mqtt-only)") }
    } else {
        print("islet-bench: running isletd on the mock bus for about a minute…")
        DaemonBench(binDir: binDir).run(into: &results)
        print("islet-bench: the web page, about 35 s…")
        WebBench(bench: DaemonBench(binDir: binDir)).run(into: &results)
    }
    if !webOnly {
        print("islet-bench: MQTT on Debian's mosquitto, about 50 s…")
        MQTTBench(bench: DaemonBench(binDir: binDir)).run(into: &results)
    }
}
print(Report.table(results, date: date), terminator: "")
if let err = Report.write(Report.json(results, date: date), to: jsonPath) {
    eprint("islet-bench: \(err)")
    ThisProcess.exit(73)
}
print("islet-bench: wrote \(jsonPath)")
