import IsletCore
import IsletSync

/// A countdown of `minutes` on `timer`, started at `at` (by the table, as a press would).
func countdown(_ timer: String, minutes: Int, at: Instant) throws -> Activity {
    var attrs = ActivityAttributes.countdown(minutes: minutes)
    attrs.timerID = timer
    guard let a = try TimerMachine.transition(.start(attrs), from: nil, now: at).activity else {
        throw Rejection(.invalidAttributes, "no activity")
    }
    return a
}

/// 2027-01-15 08:00:00 UTC: a wall clock far from the epoch, as a Pi's is once NTP has run.
let morning = Instant(milliseconds: 1_800_000_000_000)
