import Testing
#if canImport(Glibc)
import Glibc
#endif
import IsletInput

// Expected gestures are written from the recognizer's contract (GestureRecognizer's doc):
// a change is taken on its first edge, edges inside the debounce window after it are bounce,
// the last level seen wins at the window's end, a long press is due `longPress` after the press.

private func ms(_ x: UInt64) -> UInt64 { x * 1_000_000 }
private func down(_ t: UInt64, _ b: String = "toggle") -> ButtonEdge { ButtonEdge(button: b, pressed: true, timestampNanoseconds: ms(t)) }
private func up(_ t: UInt64, _ b: String = "toggle") -> ButtonEdge { ButtonEdge(button: b, pressed: false, timestampNanoseconds: ms(t)) }
private func g(_ gesture: Gesture, _ t: UInt64, _ b: String = "toggle") -> GestureEvent {
    GestureEvent(button: b, gesture: gesture, timestampNanoseconds: ms(t))
}
/// Edges given in microseconds, for bounce finer than a millisecond.
private func edgeUS(_ pressed: Bool, _ us: UInt64, _ b: String = "toggle") -> ButtonEdge {
    ButtonEdge(button: b, pressed: pressed, timestampNanoseconds: us * 1_000)
}

@Suite struct ButtonsGestureTests {
    @Test func cleanShortPressFiresPressOnTheFirstEdgeAndReleaseOnTheLast() {
        var r = GestureRecognizer()
        #expect(r.feed(down(0)) == [g(.press, 0)])
        #expect(r.isHeld("toggle"))
        // Held: the only deadline is the long press, 800 ms after the press.
        #expect(r.nextDeadline == ms(800))
        #expect(r.feed(up(100)) == [g(.release, 100)])
        #expect(r.nextDeadline == nil)
        #expect(!r.isHeld("toggle"))
    }

    @Test func bounceOnTheWayDownIsOnePress() {
        var r = GestureRecognizer()
        let bounce = [down(0), up(2), down(5), up(7), down(9)]
        #expect(r.feed(bounce) == [g(.press, 0)])
        // The bounce ended down, as taken: no settle deadline, only the long press.
        #expect(r.nextDeadline == ms(800))
        #expect(r.feed(up(200)) == [g(.release, 200)])
    }

    @Test func bounceOnTheWayUpIsOneRelease() {
        var r = GestureRecognizer()
        _ = r.feed(down(0))
        #expect(r.feed([up(300), down(302), up(305), down(310), up(329)]) == [g(.release, 300)])
        #expect(r.advance(to: ms(10_000)) == [])
    }

    @Test func bounceExactlyAtTheWindowEdgeCountsAsANewChange() {
        // Window is [0, 30): an edge at 30 ms is outside it.
        var r = GestureRecognizer()
        _ = r.feed(down(0))
        #expect(r.feed(up(30)) == [g(.release, 30)])
    }

    @Test func subMillisecondBounceIsIgnored() {
        var r = GestureRecognizer()
        var edges: [ButtonEdge] = []
        for i in 0..<20 { edges.append(edgeUS(i % 2 == 0, UInt64(i) * 150)) }
        edges.append(edgeUS(true, 3_100))
        #expect(r.feed(edges) == [GestureEvent(button: "toggle", gesture: .press, timestampNanoseconds: 0)])
    }

    @Test func tapShorterThanTheWindowReleasesWhenTheWindowCloses() {
        var r = GestureRecognizer()
        #expect(r.feed([down(0), up(10)]) == [g(.press, 0)])
        // Raw is up but the taken level is down: the window's end is due.
        #expect(r.nextDeadline == ms(30))
        #expect(r.advance(to: ms(30) - 1) == [])
        #expect(r.advance(to: ms(30)) == [g(.release, 30)])
        #expect(r.nextDeadline == nil)
    }

    @Test func aLaterEdgeFirstSettlesTheWindowItPassed() {
        var r = GestureRecognizer()
        _ = r.feed([down(0), up(10)])
        #expect(r.feed(down(100)) == [g(.release, 30), g(.press, 100)])
    }

    @Test func bounceEndingInTheOtherLevelIsTakenAtTheWindowEnd() {
        // Released at 300, then down again at 310 and stays down: a real second press.
        var r = GestureRecognizer()
        _ = r.feed(down(0))
        #expect(r.feed([up(300), down(310)]) == [g(.release, 300)])
        #expect(r.nextDeadline == ms(330))
        #expect(r.advance(to: ms(330)) == [g(.press, 330)])
        #expect(r.nextDeadline == ms(330 + 800))
        #expect(r.feed(up(500)) == [g(.release, 500)])
    }

    @Test func longPressFiresWhileHeldOnceAndReleaseFollows() {
        var r = GestureRecognizer()
        _ = r.feed(down(0))
        #expect(r.advance(to: ms(799)) == [])
        #expect(r.advance(to: ms(800)) == [g(.longPress, 800)])
        #expect(r.nextDeadline == nil)
        #expect(r.advance(to: ms(1_100)) == [])
        #expect(r.feed(up(1_200)) == [g(.release, 1_200)])
    }

    @Test func longPressIsTimedFromTheFirstEdgeDespiteBounce() {
        var r = GestureRecognizer()
        _ = r.feed([down(0), up(3), down(6), up(8), down(12)])
        #expect(r.nextDeadline == ms(800))
        #expect(r.advance(to: ms(900)) == [g(.longPress, 800)])
    }

    @Test func releaseAtTheThresholdIsALongPressAndJustBeforeItIsNot() {
        var a = GestureRecognizer()
        _ = a.feed(down(0))
        #expect(a.feed(up(800)) == [g(.longPress, 800), g(.release, 800)])
        var b = GestureRecognizer()
        _ = b.feed(down(0))
        #expect(b.feed(up(799)) == [g(.release, 799)])
    }

    @Test func releaseBouncesAfterALongPressAreOneRelease() {
        var r = GestureRecognizer()
        _ = r.feed(down(0))
        #expect(r.feed([up(1_000), down(1_004), up(1_009)]) == [g(.longPress, 800), g(.release, 1_000)])
    }

    @Test func deferredPressFiresAtAShortRelease() {
        var r = GestureRecognizer(settings: .init(pressOnRelease: ["toggle"]))
        #expect(r.feed([down(0), up(4), down(7)]) == [])
        #expect(r.feed([up(300), down(303), up(306)]) == [g(.press, 300), g(.release, 300)])
    }

    @Test func deferredPressNeverFiresAfterALongPress() {
        var r = GestureRecognizer(settings: .init(pressOnRelease: ["toggle"]))
        _ = r.feed(down(0))
        #expect(r.advance(to: ms(800)) == [g(.longPress, 800)])
        #expect(r.feed(up(900)) == [g(.release, 900)])
    }

    // The host advances to its clock after every loop turn; an edge stamped inside the window
    // but read in a later turn (a slow CPU) is still bounce by its own timestamp.
    @Test func bounceReadAfterTheHostPassedTheWindowIsStillBounce() {
        var r = GestureRecognizer(settings: .init(pressOnRelease: ["toggle"]))
        #expect(r.feed(down(0)) == [])
        #expect(r.advance(to: ms(40)) == [])
        // Stamped 2 and 5 ms after the press, read at 40 ms: one held press, no tap.
        #expect(r.feed([up(2), down(5)]) == [])
        #expect(r.advance(to: ms(90)) == [])
        #expect(r.isHeld("toggle"))
        #expect(r.feed(up(300)) == [g(.press, 300), g(.release, 300)])
    }

    @Test func aTapReadAfterTheWindowStillEndsUp() {
        var r = GestureRecognizer(settings: .init(pressOnRelease: ["toggle"]))
        _ = r.feed(down(0))
        #expect(r.advance(to: ms(40)) == [])
        // The release, stamped 10 ms (inside the window), read at 40 ms: the last level wins,
        // taken when judged again (now: the window after the edge has passed).
        #expect(r.feed(up(10)) == [])
        #expect(r.advance(to: ms(41)) == [g(.press, 40), g(.release, 40)])
        #expect(!r.isHeld("toggle"))
    }

    @Test func deferredTapShorterThanTheWindowStillPresses() {
        var r = GestureRecognizer(settings: .init(pressOnRelease: ["toggle"]))
        #expect(r.feed([down(0), up(5)]) == [])
        #expect(r.advance(to: ms(30)) == [g(.press, 30), g(.release, 30)])
    }

    @Test func deferralAppliesOnlyToTheNamedButtons() {
        var r = GestureRecognizer(settings: .init(pressOnRelease: ["toggle"]))
        #expect(r.feed(down(0, "reset")) == [g(.press, 0, "reset")])
    }

    @Test func buttonsAreIndependentAndEventsComeInTimeOrder() {
        var r = GestureRecognizer()
        var out = r.feed([down(0, "toggle"), down(100, "reset"), up(200, "toggle")])
        out += r.feed(up(1_000, "reset"))
        #expect(out == [g(.press, 0, "toggle"), g(.press, 100, "reset"), g(.release, 200, "toggle"),
                        g(.longPress, 900, "reset"), g(.release, 1_000, "reset")])
    }

    @Test func advanceHandlesSeveralButtonsDeadlinesInOrder() {
        var r = GestureRecognizer()
        _ = r.feed([down(0, "b"), down(10, "a")])
        #expect(r.nextDeadline == ms(800))
        #expect(r.advance(to: ms(2_000)) == [g(.longPress, 800, "b"), g(.longPress, 810, "a")])
    }

    @Test func aRepeatedLevelOutsideTheWindowIsIgnored() {
        // A lost edge (the kernel queue overflowed) shows up as the same level twice.
        var r = GestureRecognizer()
        _ = r.feed(down(0))
        #expect(r.feed(down(100)) == [])
        #expect(r.nextDeadline == ms(800))
        #expect(r.feed(up(200)) == [g(.release, 200)])
    }

    @Test func aReleaseOfAButtonHeldAtStartIsIgnored() {
        var r = GestureRecognizer()
        #expect(r.feed(up(50)) == [])
        #expect(r.feed(down(100)) == [g(.press, 100)])
    }

    @Test func timeNeverRunsBackwards() {
        var r = GestureRecognizer()
        _ = r.feed(down(100))
        // An older timestamp is taken as "now": inside the window, so it is bounce.
        #expect(r.feed(up(90)) == [])
        #expect(r.advance(to: ms(130)) == [g(.release, 130)])
    }

    @Test func zeroDebounceTakesEveryChange() {
        var r = GestureRecognizer(settings: .init(debounceMilliseconds: 0))
        #expect(r.feed([down(0), up(1), down(2)]) == [g(.press, 0), g(.release, 1), g(.press, 2)])
    }

    @Test func customThresholds() {
        var r = GestureRecognizer(settings: .init(debounceMilliseconds: 50, longPressMilliseconds: 300))
        #expect(r.feed([down(0), up(40), down(45)]) == [g(.press, 0)])
        #expect(r.advance(to: ms(300)) == [g(.longPress, 300)])
        #expect(r.feed([up(400), down(449)]) == [g(.release, 400)])
        #expect(r.advance(to: ms(450)) == [g(.press, 450)])
    }

    /// Random presses with random bounce: every press must come out as exactly press, an optional
    /// long press, and release, at the first edges' instants.
    @Test func randomBouncyPressesAreRecognizedExactly() {
        let iterations = Int(ButtonsEnv.value("ISLET_FUZZ_ITERATIONS") ?? "") ?? 300
        var seed: UInt64 = 0x15_1E7_0
        for _ in 0..<iterations {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var rng = ButtonsRNG(seed)
            let deferred = rng.next() % 2 == 0
            var r = GestureRecognizer(settings: .init(pressOnRelease: deferred ? ["toggle"] : []))
            var edges: [ButtonEdge] = []
            var expected: [GestureEvent] = []
            var t: UInt64 = ms(1 + rng.next() % 50)
            for _ in 0..<(1 + rng.next() % 6) {
                let pressAt = t
                edges += Self.bouncing(to: true, from: pressAt, &rng)
                let hold = ms(31 + rng.next() % 1_500)
                let releaseAt = pressAt + hold
                edges += Self.bouncing(to: false, from: releaseAt, &rng)
                let isLong = hold >= ms(800)
                if !deferred { expected.append(GestureEvent(button: "toggle", gesture: .press, timestampNanoseconds: pressAt)) }
                if isLong { expected.append(GestureEvent(button: "toggle", gesture: .longPress, timestampNanoseconds: pressAt + ms(800))) }
                if deferred && !isLong { expected.append(GestureEvent(button: "toggle", gesture: .press, timestampNanoseconds: releaseAt)) }
                expected.append(GestureEvent(button: "toggle", gesture: .release, timestampNanoseconds: releaseAt))
                t = releaseAt + ms(30 + rng.next() % 400)
            }
            let got = r.feed(edges) + r.advance(to: t + ms(5_000))
            #expect(got == expected, "seed \(seed): edges \(edges)")
            if got != expected { return }
        }
    }

    /// The first edge at `start`, then an even number of bounce edges inside the 30 ms window,
    /// so the level settles where it started.
    private static func bouncing(to pressed: Bool, from start: UInt64, _ rng: inout ButtonsRNG) -> [ButtonEdge] {
        var out = [ButtonEdge(button: "toggle", pressed: pressed, timestampNanoseconds: start)]
        let pairs = rng.next() % 5
        var at = start
        for i in 0..<(pairs * 2) {
            at += 1 + rng.next() % UInt64(2_900_000)
            out.append(ButtonEdge(button: "toggle", pressed: i % 2 == 0 ? !pressed : pressed, timestampNanoseconds: at))
        }
        return out
    }
}

private struct ButtonsRNG {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private enum ButtonsEnv {
    static func value(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }
}
