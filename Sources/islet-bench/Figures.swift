/// One figure of the benchmark: a measured number, or the reason it could not be measured.
/// A figure is never invented: whatever is not measured in this run is `missing` and is written
/// as JSON null and "n/a (…)" in the table.
enum Figure: Sendable {
    case value(Double)
    case missing(String)

    var number: Double? {
        if case .value(let v) = self { return v }
        return nil
    }
}

/// The keys of bench.json in the order the issue lists them, each with its table label.
enum Key: String, CaseIterable, Sendable {
    case renderNsPerTick = "render_ns_per_tick"
    case renderInstructionsPerTick = "render_instructions_per_tick"
    case renderAllocsPerTick = "render_allocs_per_tick"
    case renderUntilNsPerTick = "render_until_ns_per_tick"
    case renderUntilAllocsPerTick = "render_until_allocs_per_tick"
    case flushNsPerTick = "flush_ns_per_tick"
    case flushInstructionsPerTick = "flush_instructions_per_tick"
    case busBytesPerTick = "bus_bytes_per_tick"
    case busBytesPerTickLockscreen128x64 = "bus_bytes_per_tick_lockscreen_128x64"
    case busTransactionsPerTickLockscreen128x64 = "bus_transactions_per_tick_lockscreen_128x64"
    case busBytesPerTickSMBus = "bus_bytes_per_tick_smbus"
    case busBytesFullFrame = "bus_bytes_full_frame"
    case busFloorBytesPerTick = "bus_floor_bytes_per_tick"
    case busTransactionsPerTick = "bus_transactions_per_tick"
    case busUsPerTick400kHz = "bus_us_per_tick_400khz"
    case busUsPerTick100kHz = "bus_us_per_tick_100khz"
    case wakeupsPerSRunning = "wakeups_per_s_running"
    case wakeupsPerSPaused = "wakeups_per_s_paused"
    case wakeupsPerSMinimal = "wakeups_per_s_two_minimal"
    case wakeupsPerSIdle = "wakeups_per_s_idle"
    case wakeupsPerSRunningNight = "wakeups_per_s_running_night"
    case rssKibPeak = "rss_kib_peak"
    case pssKib = "pss_kib"
    case privateKib = "private_kib"
    case startToFirstFrameMs = "start_to_first_frame_ms"
    case buttonToBusUsP50 = "button_to_bus_us_p50"
    case buttonToBusUsP99 = "button_to_bus_us_p99"
    case pressToLastByteUsP50At400kHz = "press_to_last_byte_us_p50_400khz"
    case pressToLastByteUsP99At400kHz = "press_to_last_byte_us_p99_400khz"
    case pressToLastByteUsP50At100kHz = "press_to_last_byte_us_p50_100khz"
    case pressToLastByteUsP99At100kHz = "press_to_last_byte_us_p99_100khz"
    case tickLatenessMsP99 = "tick_lateness_ms_p99"
    case tickLatenessMsMax = "tick_lateness_ms_max"
    case mqttBytesPerTransition = "mqtt_bytes_per_transition"
    case mqttCommandToBusUsP50 = "mqtt_command_to_bus_us_p50"
    case mqttCommandToBusUsP99 = "mqtt_command_to_bus_us_p99"
    case wakeupsPerSPausedMQTT = "wakeups_per_s_paused_mqtt"
    case syncCommandToPeerBusUsP50 = "sync_command_to_peer_bus_us_p50"
    case syncCommandToPeerBusUsP99 = "sync_command_to_peer_bus_us_p99"
    case syncBytesPerChange = "sync_bytes_per_change"
    case rssKibPeakMQTTSync = "rss_kib_peak_mqtt_sync"
    case pssKibMQTTSync = "pss_kib_mqtt_sync"
    case privateKibMQTTSync = "private_kib_mqtt_sync"
    case webPageBytes = "web_page_bytes"
    case webFirstLoadBytes = "web_first_load_bytes"
    case webReloadBytes = "web_reload_bytes"
    case webFrameEventBytes = "web_frame_event_bytes"
    case webCommandToEventUsP50 = "web_command_to_event_us_p50"
    case webCommandToEventUsP99 = "web_command_to_event_us_p99"
    case wakeupsPerSRunningWeb = "wakeups_per_s_running_web"
    case wakeupsPerSPausedWeb = "wakeups_per_s_paused_web"
    case rssKibPeakWeb = "rss_kib_peak_web_10_streams"

    var label: String {
        switch self {
        case .renderNsPerTick: "render, compact 128x32 tick (median)"
        case .renderInstructionsPerTick: "render instructions per tick (callgrind)"
        case .renderAllocsPerTick: "heap allocations per render (steady state)"
        case .renderUntilNsPerTick: "render, until 128x64, every presentation (median)"
        case .renderUntilAllocsPerTick: "heap allocations per until render (steady state)"
        case .flushNsPerTick: "flush: diff + encode per tick (median)"
        case .flushInstructionsPerTick: "flush instructions per tick (callgrind)"
        case .busBytesPerTick: "bus bytes per tick, 128x32 compact, I2C"
        case .busBytesPerTickLockscreen128x64: "bus bytes per tick, 128x64 lock screen"
        case .busTransactionsPerTickLockscreen128x64: "bus transactions per tick, 128x64 lock"
        case .busBytesPerTickSMBus: "bus bytes per tick, 128x32, SMBus"
        case .busBytesFullFrame: "bus bytes, full 128x32 frame"
        case .busFloorBytesPerTick: "floor: changed bytes + 1 control byte"
        case .busTransactionsPerTick: "bus transactions per tick, 128x32"
        case .busUsPerTick400kHz: "wire time per tick at 400 kHz"
        case .busUsPerTick100kHz: "wire time per tick at 100 kHz"
        case .wakeupsPerSRunning: "isletd wake-ups/s, running"
        case .wakeupsPerSPaused: "isletd wake-ups/s, paused"
        case .wakeupsPerSMinimal: "isletd wake-ups/s, two minimal icons"
        case .wakeupsPerSIdle: "isletd wake-ups/s, idle"
        case .wakeupsPerSRunningNight: "isletd wake-ups/s, running, night mode"
        case .rssKibPeak: "isletd peak RSS"
        case .pssKib: "isletd PSS at the end"
        case .privateKib: "isletd private memory at the end"
        case .startToFirstFrameMs: "isletd start to first frame"
        case .buttonToBusUsP50: "button to bus, p50"
        case .buttonToBusUsP99: "button to bus, p99"
        case .pressToLastByteUsP50At400kHz: "press to its last byte on a 400 kHz wire, p50"
        case .pressToLastByteUsP99At400kHz: "press to its last byte on a 400 kHz wire, p99"
        case .pressToLastByteUsP50At100kHz: "press to its last byte on a 100 kHz wire, p50"
        case .pressToLastByteUsP99At100kHz: "press to its last byte on a 100 kHz wire, p99"
        case .tickLatenessMsP99: "tick lateness, p99"
        case .tickLatenessMsMax: "tick lateness, maximum"
        case .mqttBytesPerTransition: "MQTT bytes on the broker per transition"
        case .mqttCommandToBusUsP50: "MQTT command to bus, p50"
        case .mqttCommandToBusUsP99: "MQTT command to bus, p99"
        case .wakeupsPerSPausedMQTT: "isletd wake-ups/s, paused, MQTT up"
        case .syncCommandToPeerBusUsP50: "sync: command on A to B's bus, p50"
        case .syncCommandToPeerBusUsP99: "sync: command on A to B's bus, p99"
        case .syncBytesPerChange: "sync: group bytes on the broker per change"
        case .rssKibPeakMQTTSync: "isletd peak RSS, [mqtt] and [sync]"
        case .pssKibMQTTSync: "isletd PSS, [mqtt] and [sync]"
        case .privateKibMQTTSync: "isletd private memory, [mqtt] and [sync]"
        case .webPageBytes: "web page weight (HTML, CSS, script)"
        case .webFirstLoadBytes: "web: a first load on the wire (gzip)"
        case .webReloadBytes: "web: a reload on the wire (304s)"
        case .webFrameEventBytes: "web: bytes per frame event"
        case .webCommandToEventUsP50: "web: command to an open stream's event, p50"
        case .webCommandToEventUsP99: "web: command to an open stream's event, p99"
        case .wakeupsPerSRunningWeb: "isletd wake-ups/s, running, [web], no browser"
        case .wakeupsPerSPausedWeb: "isletd wake-ups/s, paused, [web], no browser"
        case .rssKibPeakWeb: "isletd peak RSS, [web], 10 streams open"
        }
    }

    var unit: String {
        switch self {
        case .renderNsPerTick, .flushNsPerTick, .renderUntilNsPerTick: "ns"
        case .renderAllocsPerTick, .renderUntilAllocsPerTick: "allocs"
        case .renderInstructionsPerTick, .flushInstructionsPerTick: "instr"
        case .busBytesPerTick, .busBytesPerTickLockscreen128x64, .busBytesPerTickSMBus, .busBytesFullFrame,
             .busFloorBytesPerTick, .mqttBytesPerTransition, .syncBytesPerChange, .webPageBytes, .webFirstLoadBytes, .webReloadBytes,
             .webFrameEventBytes: "B"
        case .busTransactionsPerTick, .busTransactionsPerTickLockscreen128x64: "txn"
        case .busUsPerTick400kHz, .busUsPerTick100kHz, .buttonToBusUsP50, .buttonToBusUsP99,
             .pressToLastByteUsP50At400kHz, .pressToLastByteUsP99At400kHz, .pressToLastByteUsP50At100kHz, .pressToLastByteUsP99At100kHz,
             .mqttCommandToBusUsP50, .mqttCommandToBusUsP99, .syncCommandToPeerBusUsP50, .syncCommandToPeerBusUsP99,
             .webCommandToEventUsP50, .webCommandToEventUsP99: "us"
        case .wakeupsPerSRunning, .wakeupsPerSPaused, .wakeupsPerSMinimal, .wakeupsPerSIdle, .wakeupsPerSRunningNight, .wakeupsPerSPausedMQTT,
             .wakeupsPerSRunningWeb, .wakeupsPerSPausedWeb: "/s"
        case .rssKibPeak, .rssKibPeakWeb, .pssKib, .privateKib, .rssKibPeakMQTTSync, .pssKibMQTTSync, .privateKibMQTTSync: "KiB"
        case .startToFirstFrameMs, .tickLatenessMsP99, .tickLatenessMsMax: "ms"
        }
    }
}

/// The figures of one run, filled in piece by piece.
struct Results: Sendable {
    private(set) var figures: [Key: Figure] = [:]
    /// Extra facts for the JSON `meta` object (method notes, sample counts).
    private(set) var notes: [(String, String)] = []

    subscript(key: Key) -> Figure {
        get { figures[key] ?? .missing("not measured in this run") }
        set { figures[key] = newValue }
    }

    mutating func note(_ key: String, _ value: String) { notes.append((key, value)) }
}

/// Order statistics over samples; the machine is shared, so medians and percentiles, not means.
enum Stats {
    static func percentile(_ samples: [Double], _ p: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let s = samples.sorted()
        // Nearest-rank percentile: the smallest sample with at least p % of the samples at or below it.
        let rank = Int((p / 100 * Double(s.count)).rounded(.up))
        return s[min(max(rank, 1), s.count) - 1]
    }

    static func median(_ samples: [Double]) -> Double? {
        guard !samples.isEmpty else { return nil }
        let s = samples.sorted()
        let n = s.count
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }
}
