import Testing
import IsletDisplay

/// The command tables against the datasheets' own command lists.
@Test func commandTablesMatchTheDatasheets() {
    // SSD1306 §10.1.4/§10.1.5: 21h and 22h take two bytes; §10.2.1: 26h takes six. App Note: 8Dh one.
    #expect(Controller.ssd1306.command(0x21)?.parameters == 2)
    #expect(Controller.ssd1306.command(0x26)?.parameters == 6)
    #expect(Controller.ssd1306.command(0x8D)?.parameters == 1)
    // SSD1309 has no charge pump (its Tables 9-1..9-5 list no 8Dh) but a command lock FDh (§10.22).
    #expect(Controller.ssd1309.command(0x8D) == nil)
    #expect(Controller.ssd1309.command(0xFD)?.parameters == 1)
    // SH1106: page addressing only (no 20h/21h/22h), high column 10h-18h, DC-DC ADh with one byte.
    #expect(Controller.sh1106.command(0x20) == nil && Controller.sh1106.command(0x21) == nil)
    #expect(Controller.sh1106.maxHighColumnCommand == 0x18 && Controller.sh1106.command(0x19) == nil)
    #expect(Controller.sh1106.command(0xAD)?.parameters == 1)
    // SH1107: no DAh, 20h/21h without parameters, pages B0h-BFh, start line DCh plus a byte.
    #expect(!Controller.sh1107.hasCOMPins)
    #expect(Controller.sh1107.command(0x20)?.parameters == 0 && Controller.sh1107.command(0x21)?.parameters == 0)
    #expect(Controller.sh1107.command(0xBF) != nil && Controller.sh1106.command(0xB8) == nil)
    #expect(Controller.sh1107.command(0xDC)?.parameters == 1 && Controller.sh1107.command(0x40) == nil)
    #expect(Controller.ssd1306.hasAddressWindows && !Controller.sh1107.hasAddressWindows)
}
