// Until the daemon lands: a keyboard-driven terminal program over the state machine, so
// `make demo` shows the lifecycle from the first commit.
#if canImport(Glibc)
import Glibc
#endif
import IsletCore

func nowInstant() -> Instant {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Instant(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
}

let defaultSession = ActivityAttributes(kind: .countdown(cycle: .seconds(20), cycles: 2), cycleEndInterval: .seconds(3))
var activity: Activity?
var lastLine = ""

var saved = termios()
let interactive = isatty(0) == 1
if interactive {
    tcgetattr(0, &saved)
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    tcsetattr(0, TCSANOW, &raw)
}
print("islet demo: [space] toggle  [r] reset  [s] stopwatch  [e] end  [q] quit")

@MainActor func show(_ now: Instant) {
    guard let a = activity else {
        if lastLine != "IDLE" { lastLine = "IDLE"; print("IDLE") }
        return
    }
    let t = ShownTime.format(ShownTime.seconds(of: a, at: now))
    let cycles = a.content.totalCycles.map { " cycle \(a.content.cycle)/\($0)" } ?? ""
    let line = "\(a.phase.rawValue.uppercased()) \(t)\(cycles)"
    if line != lastLine { lastLine = line; print(line) }
}

loop: while true {
    var now = nowInstant()
    activity = TimerMachine.advance(activity, to: now).activity
    show(now)
    let deadline = activity.flatMap { ShownTime.nextDeadline(of: $0, after: now) }
    let wait = deadline.map { Int32(clamping: max(0, ($0.at - now).wholeMilliseconds)) } ?? -1
    var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
    let n = poll(&pfd, 1, wait)
    if n <= 0 { continue }
    var c: UInt8 = 0
    if read(0, &c, 1) <= 0 { break }
    now = nowInstant()
    let intent: Intent
    switch c {
    case UInt8(ascii: " "): intent = .toggle(default: defaultSession)
    case UInt8(ascii: "r"): intent = .reset
    case UInt8(ascii: "e"): intent = .end(.after(now + .seconds(3)))
    case UInt8(ascii: "s"): intent = .start(ActivityAttributes(kind: .stopwatch))
    case UInt8(ascii: "q"): break loop
    default: continue
    }
    do {
        activity = try TimerMachine.apply(intent, to: activity, now: now).activity
    } catch {
        print("refused: \(error.message)")
    }
}
if interactive { tcsetattr(0, TCSANOW, &saved) }
