import Testing
import IsletFrame

@Test func panelSizesParse() {
    #expect(PanelSize(parsing: "128x32") == .w128h32)
    #expect(PanelSize(parsing: "64X128") == .w64h128)
    #expect(PanelSize(parsing: "72×40") == .w72h40)
    for bad in ["", "128", "128x", "x32", "128x32x1", "-8x8", "4x8", "300x32", "12ax3", " 128x32"] {
        #expect(PanelSize(parsing: bad) == nil, "\(bad)")
    }
    #expect(PanelSize.all.count == 8)
}
