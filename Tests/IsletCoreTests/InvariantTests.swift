import Testing
import FoundationEssentials
import IsletCore
import IsletTestSupport

/// The one definition of what an activity and a book may be (Invariants.swift): requests are
/// held to it, the loader checks restored state with it, and nothing requests can reach breaks it.
@Suite("one set of invariants")
struct InvariantTests {
    let t0 = Instant(milliseconds: 1_796_256_000_000)

    @Test("a title with a NUL or another control character is refused with the field named",
          arguments: ["a\u{0}b", "bell\u{7}", "tab\there", "new\nline", "del\u{7F}", "csi\u{9B}"])
    func controlCharactersInATitleAreRefused(_ title: String) {
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 1), title: title)
        #expect(throws: Rejection.self) { try attrs.validated() }
        var book = ActivityBook()
        do {
            _ = try book.apply(.start(attrs), timer: nil, now: t0)
            Issue.record("a start with title \(title.debugDescription) was taken")
        } catch {
            #expect(error.code == .invalidAttributes)
            #expect(error.message.contains("title") && error.message.contains("control character"), "\(error.message)")
        }
        #expect(book.activities.isEmpty)
    }

    @Test("titles people write still start: accents, emoji, right-to-left text, 64 characters")
    func ordinaryTitlesStart() throws {
        for title in ["Évening", "🧘 sit", "מדיטציה", String(repeating: "x", count: 64)] {
            _ = try ActivityAttributes(kind: .stopwatch, title: title).validated()
        }
    }

    @Test("the book's rules name the field of the first activity that breaks them")
    func theBooksRulesNameTheField() throws {
        let start = try #require(try TimerMachine.apply(.start(.countdown(minutes: 5)), to: nil, now: t0).activity)
        func field(_ list: [Activity]) -> String? {
            do { try ActivityBook.check(list); return nil } catch { return error.field }
        }
        #expect(field([start]) == nil)
        #expect(field(Array(repeating: start, count: 17)) == "activities")
        #expect(field([start, start]) == "activities[1].attributes.timer")
        var bad = start
        bad.attributes.timerID = "../../etc"
        #expect(field([bad]) == "activities[0].attributes.timer")
        bad = start
        bad.content.cycle = 0
        #expect(field([bad]) == "activities[0].content.cycle")
        bad.content.cycle = 5
        #expect(field([bad]) == "activities[0].content.cycle")
        bad = start
        bad.content.display = .idle
        #expect(field([bad]) == "activities[0].content.phase")
        bad = start
        bad.startedAt = Instant.validRange.upperBound
        #expect(field([bad]) == "activities[0].started_at")
        #expect(throws: InvariantViolation.self) { try ActivityBook(validating: [start, start]) }
    }

    @Test("every book requests can reach meets the rules, and survives the state file's encoding")
    func everyReachableBookMeetsTheRules() throws {
        var rng = SplitMix(state: UInt64(environmentValue("ISLET_FUZZ_SEED").flatMap(UInt64.init) ?? 7))
        let timers = ["meditation", "stopwatch", "a", "b"]
        for run in 0..<fuzzIterations(300) {
            var book = ActivityBook()
            var now = t0
            for _ in 0..<40 {
                now = now + .milliseconds(Int64(rng.int(4)) * Int64(rng.int(90_000)))
                let timer = timers[rng.int(timers.count)]
                let kind: ActivityKind = rng.bool() ? .stopwatch
                    : .countdown(cycle: .milliseconds(Int64(1 + rng.int(5)) * 1000 + Int64(rng.int(2)) * 500), cycles: rng.bool() ? 1 + rng.int(3) : nil)
                let attrs = ActivityAttributes(timerID: timer, kind: kind, cycleEndInterval: .seconds(Int64(rng.int(3))),
                                               staleAfter: rng.bool() ? .seconds(Int64(1 + rng.int(30))) : nil)
                let intents: [Intent] = [.start(attrs), .pause, .resume, .toggle(default: attrs), .reset, .end(.default),
                                         .end(.after(now + .seconds(2))), .expand, .markStale, .markFresh]
                if let outcome = try? book.apply(intents[rng.int(intents.count)], timer: rng.bool() ? timer : nil, now: now),
                   case .starting(_, let ticket) = outcome {
                    _ = book.finishStart(ticket, saved: rng.int(8) != 0)
                }
                _ = book.advance(to: now)
                do { try ActivityBook.check(book.activities) }
                catch { Issue.record("run \(run): requests reached a book the loader refuses: \(error)"); return }
                let back = try JSONDecoder().decode([Activity].self, from: JSONEncoder().encode(book.activities))
                #expect(back == book.activities, "run \(run)")
            }
        }
    }
}
