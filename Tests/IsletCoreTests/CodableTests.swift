import Testing
import FoundationEssentials
import IsletCore

/// Golden JSON written by hand from the documented form (README.md, "The content state"),
/// not printed by the code: each fixture must decode to the value beside it and encode back to it.
private func fixture(_ name: String) throws -> String {
    let dir = String(#filePath.dropLast("CodableTests.swift".count)) + "Fixtures/"
    let data = try Data(contentsOf: URL(fileURLWithPath: dir + name))
    var s = String(decoding: data, as: UTF8.self)
    while s.last?.isWhitespace == true { s.removeLast() }
    return s
}

private func encode<T: Encodable>(_ v: T) throws -> String {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try e.encode(v), as: UTF8.self)
}

private func decode<T: Decodable>(_ t: T.Type, _ s: String) throws -> T {
    try JSONDecoder().decode(t, from: Data(s.utf8))
}

private let end = ISO8601.parse("2026-11-29T22:05:00.000Z") ?? .epoch

let contentCases: [(String, ContentState)] = [
    ("content-running.json", ContentState(display: .running(reference: end), cycle: 2, totalCycles: 3)),
    ("content-paused.json", ContentState(display: .paused(frozen: .milliseconds(199_500)), cycle: 1, totalCycles: 3)),
    ("content-cycle-end.json", ContentState(display: .cycleEnd(nextCycleAt: end + .seconds(3)), cycle: 1, totalCycles: 3)),
    ("content-complete.json", ContentState(display: .complete, cycle: 3, totalCycles: 3)),
    ("content-idle.json", .idle),
    ("content-stopwatch-running.json", ContentState(display: .running(reference: end - .milliseconds(342_750)), isStale: true)),
    ("content-stopwatch-paused.json", ContentState(display: .paused(frozen: .milliseconds(42_125)))),
    // Schema 2: an until activity's content is what its source pushed.
    ("content-until-running.json", ContentState(display: .tracking, pushed: PushedContent(endsAt: end, progress: 0.4, text: "Rinsing"))),
    ("content-until-progress-only.json", ContentState(display: .tracking, isStale: true, pushed: PushedContent(progress: 0.75))),
    ("content-until-complete.json", ContentState(display: .complete, pushed: PushedContent(text: "Done"))),
]

@Test(arguments: contentCases.map(\.0))
func contentStateMatchesItsGoldenJSON(_ name: String) throws {
    let value = try #require(contentCases.first { $0.0 == name }?.1)
    let json = try fixture(name)
    #expect(try decode(ContentState.self, json) == value)
    #expect(try encode(value) == json)
}

@Test func attributesMatchTheirGoldenJSON() throws {
    let countdown = ActivityAttributes(kind: .countdown(cycle: .seconds(300), cycles: 3), title: "Morning sit", language: "ar")
    let sw = ActivityAttributes(kind: .stopwatch, staleAfter: .milliseconds(90_500))
    let until = ActivityAttributes(timerID: "laundry", kind: .until(PushedContent(endsAt: end, text: "Waschen")), title: "Wäsche",
                                   language: "de", icon: .named("laundry"))
    // "P4\n8 8\n" and eight rows: a square outline, as base64.
    let oven = ActivityAttributes(timerID: "oven", kind: .until(PushedContent(progress: 0)), icon: .custom(base64: "UDQKOCA4Cv+BgYGBgYH/"), relevance: 40)
    let tea = ActivityAttributes(timerID: "tea", kind: .countdown(cycle: .seconds(600), cycles: 1), icon: .named("kettle"), relevance: 20)
    for (name, value) in [("attributes-countdown.json", countdown), ("attributes-stopwatch.json", sw),
                          ("attributes-until.json", until), ("attributes-until-custom-icon.json", oven),
                          ("attributes-countdown-icon.json", tea)] {
        let json = try fixture(name)
        #expect(try decode(ActivityAttributes.self, json) == value)
        #expect(try encode(value) == json)
    }
}

@Test func aCompletedActivityRoundTripsWithItsDismissal() throws {
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(300), cycles: 1))
    let done = TimerMachine.advance(try TimerMachine.apply(.start(attrs), to: nil, now: end - .seconds(300)).activity,
                                    to: end + .seconds(1)).activity
    let json = try fixture("activity-complete.json")
    #expect(try encode(done) == json)
    #expect(try decode(Activity.self, json) == done)
}

@Test func unknownSchemaAndBadValuesAreRefused() {
    #expect(throws: DecodingError.self) { try decode(ContentState.self, #"{"schema":3,"phase":"idle"}"#) }
    #expect(throws: DecodingError.self) { try decode(ContentState.self, #"{"schema":2,"phase":"running","pushed":{"ends_at":"soon"}}"#) }
    #expect(throws: DecodingError.self) { try decode(ActivityAttributes.self, #"{"kind":"until","icon":"bell","icon_data":"AAAA"}"#) }
    #expect(throws: DecodingError.self) { try decode(ActivityAttributes.self, #"{"kind":"alarm"}"#) }
    #expect(throws: DecodingError.self) { try decode(ContentState.self, #"{"schema":1,"phase":"sleeping"}"#) }
    #expect(throws: DecodingError.self) { try decode(ContentState.self, #"{"schema":1,"phase":"running","reference":"yesterday"}"#) }
    #expect(throws: DecodingError.self) { try decode(ContentState.self, #"{"schema":1,"phase":"paused","frozen_seconds":-3}"#) }
    #expect(throws: DecodingError.self) { try decode(ActivityAttributes.self, #"{"kind":"egg-timer"}"#) }
}

@Test func everyReachableActivityRoundTripsAndStaysUnderFourKilobytes() throws {
    let long = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 999),
                                  title: String(repeating: "ن", count: ActivityAttributes.maxTitleLength),
                                  staleAfter: .seconds(30), language: "zh-Hans")
    var a = try TimerMachine.apply(.start(long), to: nil, now: t0).activity
    for s in stride(from: 0.0, to: 400, by: 13.7) {
        a = TimerMachine.advance(a, to: at(s)).activity
        guard let cur = a else { break }
        let bytes = try JSONEncoder().encode(cur)
        #expect(bytes.count < Limits.maximumEncodedBytes)
        #expect(try JSONDecoder().decode(Activity.self, from: bytes) == cur)
    }
}

@Test func theLargestUntilActivityStaysUnderFourKilobytes() throws {
    // Every field at its bound, in the widest bytes JSON allows: a 64-character title of
    // quotes (escaped to 2 bytes each), a 32-character text of 4-byte emoji, the longest icon.
    let text = String(repeating: "🧺", count: PushedContent.maximumTextLength)
    let p = PushedContent(endsAt: end, progress: 0.123456789012345, text: text)
    let attrs = ActivityAttributes(timerID: String(repeating: "x", count: 64), kind: .until(p),
                                   title: String(repeating: "\"", count: ActivityAttributes.maxTitleLength),
                                   staleAfter: .milliseconds(1_234_567), language: "zh-Hant-TW",
                                   icon: .custom(base64: String(repeating: "A", count: ActivityIcon.maximumCustomBase64Length)), relevance: 99.999)
    let a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: end - .seconds(60)).activity)
    let ended = try #require(try TimerMachine.apply(.end(.after(end)), to: a, now: end - .seconds(30)).activity)
    for x in [a, ended] {
        let bytes = try encode(x).utf8.count
        #expect(bytes < Limits.maximumEncodedBytes, "\(bytes) bytes")
    }
}
