#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock times as a person types them ("14:05"), in the host's local time zone (TZ, else
/// /etc/localtime, as glibc reads them): isletctl turns them into instants before they travel.
public enum LocalClock {
    /// The first instant at or after `after` (seconds since 1970) whose local time of day is
    /// `hour:minute:second`: today's, else tomorrow's. A time that a DST change skips that day
    /// is taken as glibc's mktime normalises it (an hour later); nil when the C library fails.
    public static func nextOccurrence(hour: Int, minute: Int, second: Int = 0, after: Int64) -> Int64? {
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        var t = time_t(after)
        var tm = Glibc.tm()
        guard localtime_r(&t, &tm) != nil else { return nil }
        for dayOffset in 0...2 {
            var want = tm
            want.tm_hour = Int32(hour)
            want.tm_min = Int32(minute)
            want.tm_sec = Int32(second)
            want.tm_mday += Int32(dayOffset)
            want.tm_isdst = -1   // let the zone's rules say whether DST applies that day
            let s = mktime(&want)
            guard s != -1 else { return nil }
            if Int64(s) > after { return Int64(s) }
        }
        return nil
    }
}
