import IsletFrame

/// What an observer of the emulated panel sees: RAM through the COM scan, the column remap,
/// contrast and display-on.
extension EmulatedPanel {
    // MARK: what the glass shows

    /// The image a person would see on the glass, in the panel's rotation-0 orientation.
    public var image: Bitmap {
        var out = Bitmap(width: module.width, height: module.height)
        guard displayOn, chargePumpOn || module.externalVPP else { return out }
        let c = controller
        let segCount = c.comAlongColumns ? c.ramRows : c.ramColumns
        let lineCount = c.comAlongColumns ? c.ramColumns : c.ramRows
        let segOffset = module.segFirst
        let glassLines = c.comAlongColumns ? module.width : module.height
        let driven = Int(multiplex) + 1
        for y in 0..<module.height {
            for x in 0..<module.width {
                let s = c.comAlongColumns ? y : x
                let l = c.comAlongColumns ? x : y
                // Which segment and COM pin reach this spot of the glass.
                let seg = module.segReversed ? segCount - 1 - segOffset - s : segOffset + s
                let wired = module.comFirst + (module.comReversed ? glassLines - 1 - l : l)
                let com = comIndex(wired)
                guard seg >= 0, seg < segCount, com >= 0, com < driven else { continue }
                var lit: Bool
                if entireDisplayOn {
                    lit = true
                } else {
                    let segCoord = c.remapAppliesAtWrite || !segmentRemap ? seg : segCount - 1 - seg
                    let line = comReversed ? driven - 1 - com : com
                    let lineCoord = (line + startLine + Int(displayOffset)) % lineCount
                    let (col, row) = c.comAlongColumns ? (lineCoord, segCoord) : (segCoord, lineCoord)
                    lit = ram[(row >> 3) * c.ramColumns + col] & (1 << UInt8(row & 7)) != 0
                    if inverted { lit.toggle() }
                }
                if lit { out[x, y] = true }
            }
        }
        return out
    }

    /// The COM scan index that reaches the glass line the module wires as `wired` (its scan index
    /// under the module's own DAh setting), under the DAh value the controller was sent.
    /// SSD1306 §10.1.18 and Table 10-3 (p. 40–42; SSD1309 and SH1106 alike): sequential (A[4]=0)
    /// puts scan index c on pad COMc; alternative (A[4]=1) puts even c on pad COM(c/2) and odd c
    /// on COM(32+(c−1)/2); left/right remap (A[5]=1) swaps the two halves of 32 pads. So a module
    /// is wired pad by pad, and a different DAh moves rows between glass lines: 128×64 glass
    /// sent 02h instead of 12h shows the top half of the picture on the even lines and the bottom
    /// half on the odd ones.
    func comIndex(_ wired: Int) -> Int {
        guard let expected = module.comPinWiring, expected != comPins, wired >= 0, wired < 64 else { return wired }
        return Self.scanIndex(onPad: Self.pad(ofScanIndex: wired, config: expected), config: comPins)
    }

    static func pad(ofScanIndex c: Int, config: UInt8) -> Int {
        let alternative = config & 0x10 != 0, swap = config & 0x20 != 0
        var pad = alternative ? (c % 2 == 0 ? c / 2 : 32 + (c - 1) / 2) : c
        if swap { pad = (pad + 32) % 64 }
        return pad
    }

    static func scanIndex(onPad pad: Int, config: UInt8) -> Int {
        let alternative = config & 0x10 != 0, swap = config & 0x20 != 0
        let p = swap ? (pad + 32) % 64 : pad
        return alternative ? (p < 32 ? 2 * p : 2 * (p - 32) + 1) : p
    }

    func hex(_ v: UInt8) -> String { Hex.byte(v, uppercase: true) + "h" }
}
