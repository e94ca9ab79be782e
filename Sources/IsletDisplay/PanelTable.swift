// The supported modules, one row each, every value with its source. Peers: luma.oled
// (luma/oled/device/__init__.py), u8g2 (csrc/u8x8_d_*.c), the Linux kernel's ssd130x driver, and
// the datasheets in the project's shared folder. docs/DISPLAY.md lists where the peers disagree.

extension PanelModel {
    /// Every supported module, one row each.
    public static let all: [PanelModel] = [
        ssd1306(128, 64, offset: 0, mux: 0x3F, pins: 0x12, src: [
            .columnOffset: "full 128-column glass: luma ssd1306 colstart 0; u8g2 ssd1306_128x64_noname default/flipmode x offset 0/0",
            .multiplex: "SSD1306 §10.1.11 A8h 3Fh = 64 MUX; luma and u8g2 send A8 3F",
            .comPins: "SSD1306 §10.1.18 DAh 12h alternative COM pins; luma and u8g2 send DA 12",
        ]),
        ssd1306(128, 32, offset: 0, mux: 0x1F, pins: 0x02, contrast: 0x8F, src: [
            .columnOffset: "full 128-column glass: luma colstart 0; u8g2 ssd1306_128x32_univision x offset 0/0",
            .multiplex: "A8h 1Fh = 32 MUX (§10.1.11); luma and u8g2 send A8 1F",
            .comPins: "DAh 02h sequential COM pins (§10.1.18); luma and u8g2 send DA 02",
            .contrast: "u8g2 ssd1306_128x32_univision sends 81 8F (luma CF for every size)",
        ]),
        ssd1306(96, 16, offset: 0, mux: 0x0F, pins: 0x02, clock: 0x60, src: [
            .columnOffset: "u8g2 ssd1306_96x16_er: x offset 0 upright, 32 flipped; luma fix #368 (colstart 0); 32 when flipped follows from the mirror (128 - 0 - 96)",
            .multiplex: "A8h 0Fh = 16 MUX; luma and u8g2 send A8 0F",
            .comPins: "DAh 02h sequential; luma and u8g2 send DA 02",
            .clockDivide: "luma sends D5 60 for 96x16 (u8g2 80)",
        ]),
        ssd1306(72, 40, offset: 28, mux: 0x27, pins: 0x12, extra: [[0xAD, 0x30]], src: [
            .columnOffset: "u8g2 ssd1306_72x40_er: x offset 28 upright and flipped",
            .multiplex: "u8g2 ssd1306_72x40_er sends A8 27 (40 COM lines)",
            .comPins: "u8g2 ssd1306_72x40_er sends DA 12",
            .extraInit: "u8g2 ssd1306_72x40_er sends AD 30 (internal IREF); without it the 0.42\" modules are very dim (u8g2 issue #1047)",
        ]),
        ssd1306(64, 48, offset: 32, mux: 0x2F, pins: 0x12, src: [
            .columnOffset: "luma colstart (128-64)/2 = 32; u8g2 ssd1306_64x48_er x offset 32/32",
            .multiplex: "A8h 2Fh = 48 MUX; luma and u8g2 send A8 2F",
            .comPins: "DAh 12h; luma and u8g2 send DA 12",
        ]),
        ssd1306(64, 32, offset: 32, mux: 0x1F, pins: 0x12, src: [
            .columnOffset: "luma colstart (128-64)/2 = 32; u8g2 ssd1306_64x32_1f x offset 32/32",
            .multiplex: "A8h 1Fh: luma and u8g2 ssd1306_64x32_1f; the 48-line variant (u8g2 64x32_noname, A8 2F) is multiplex = 48",
            .comPins: "DAh 12h; luma and u8g2 send DA 12",
        ]),
        PanelModel(controller: .sh1106, width: 128, height: 64, columnOffset: 2, multiplex: 0x3F, comPins: 0x12,
                   clockDivide: 0x50, precharge: 0x22, vcomh: 0x35, contrast: 0x80,
                   sources: sh1106Sources),
        PanelModel(controller: .ssd1309, width: 128, height: 64, columnOffset: 0, multiplex: 0x3F, comPins: 0x12,
                   clockDivide: 0x70, precharge: 0x22, vcomh: 0x34, contrast: 0x7F,
                   sources: ssd1309Sources),
        PanelModel(controller: .sh1107, width: 64, height: 128, columnOffset: 0, multiplex: 0x7F, comPins: nil,
                   displayOffset: 0x60, segmentRemap: false, comScanReversed: false,
                   clockDivide: 0x50, precharge: 0x22, vcomh: 0x35, contrast: 0x80,
                   sources: sh1107Sources(size: "64x128", mux: "A8 7F and D3 60 as luma sh1107 (64x128) and u8g2 sh1107_64x128 send")),
        PanelModel(controller: .sh1107, width: 128, height: 128, columnOffset: 0, multiplex: 0x7F, comPins: nil,
                   segmentRemap: false, comScanReversed: false,
                   clockDivide: 0x50, precharge: 0x22, vcomh: 0x35, contrast: 0x80,
                   sources: sh1107Sources(size: "128x128", mux: "A8 7F (all 128 COM lines, POR) and D3 00 as Pimoroni/Seeed and u8g2 sh1107_128x128")),
    ]

    /// An SSD1306 charge-pump module: the values luma.oled and u8g2 agree on for cheap modules.
    private static func ssd1306(_ w: Int, _ h: Int, offset: Int, mux: UInt8, pins: UInt8, clock: UInt8 = 0x80,
                                contrast: UInt8 = 0xCF, extra: [[UInt8]] = [], src: [PanelField: String]) -> PanelModel {
        var sources: [PanelField: String] = [
            .displayOffset: "D3 00 in luma and u8g2; SSD1306 §10.1.15",
            .segmentRemap: "A1 upright in luma and u8g2 (the glass is wired SEG127 at the left)",
            .comScan: "C8 upright in luma and u8g2",
            .clockDivide: "D5 80 in luma and u8g2 (SSD1306 §10.1.16: POR 80h)",
            .precharge: "D9 F1 in luma and u8g2 for charge-pump modules (POR 22h, §10.1.17)",
            .vcomh: "DB 40 in luma and u8g2 (POR 20h, §10.1.19)",
            .contrast: "81 CF in luma for every SSD1306 and in u8g2 128x64 (POR 7Fh, §10.1.7)",
            .extraInit: "none: the common sequence",
        ]
        sources.merge(src) { _, new in new }
        return PanelModel(controller: .ssd1306, width: w, height: h, columnOffset: offset, multiplex: mux, comPins: pins,
                          clockDivide: clock, contrast: contrast, extraInit: extra, sources: sources)
    }

    private static let sh1106Sources: [PanelField: String] = [
        .columnOffset: "132-column RAM (SH1106 Figure 8); common 1.3\" modules show columns 2-129 (luma sh1106 colstart 2, u8g2 sh1106_128x64_noname x offset 2); modules wired at 0 exist (luma issue #376): column_offset = 0",
        .multiplex: "A8 3F: SH1106 item 9, 64 lines; luma and u8g2 send A8 3F",
        .comPins: "DA 12 (SH1106 item 17, POR 12h); luma and u8g2 send DA 12",
        .displayOffset: "D3 00 (SH1106 item 14, POR 00h)",
        .segmentRemap: "A1 upright in luma and u8g2",
        .comScan: "C8 upright in luma and u8g2",
        .clockDivide: "D5 50: SH1106 item 15 POR 50h (luma F0, u8g2 80 or 50, kernel 50)",
        .precharge: "D9 22: SH1106 item 16 POR 22h (luma 22, kernel 22, u8g2 F1 or 22)",
        .vcomh: "DB 35: SH1106 item 18 POR 35h (luma 20, kernel 40, u8g2 40 or 35)",
        .contrast: "81 80: SH1106 item 7 POR 80h (luma and kernel 7F, u8g2 CF or FF)",
        .extraInit: "none",
    ]

    private static let ssd1309Sources: [PanelField: String] = [
        .columnOffset: "full 128-column glass; u8g2 ssd1309_128x64_noname0 x offset 0 (its noname2 variant is 2: column_offset = 2)",
        .multiplex: "A8 3F (SSD1309 command table, 64 MUX); luma, kernel and u8g2 send A8 3F",
        .comPins: "DA 12 (SSD1309 command table); luma, kernel and u8g2 send DA 12",
        .displayOffset: "D3 00",
        .segmentRemap: "A1 upright in luma and u8g2",
        .comScan: "C8 upright in luma and u8g2",
        .clockDivide: "D5 70: SSD1309 POR (kernel and u8g2 A0)",
        .precharge: "D9 22: SSD1309 POR (kernel 22, luma F1, u8g2 D3)",
        .vcomh: "DB 34: SSD1309 POR (kernel 34, luma 40, u8g2 20)",
        .contrast: "81 7F: SSD1309 POR (kernel 7F, luma CF, u8g2 6F)",
        .extraInit: "none; no 8Dh (the SSD1309 has no charge pump, luma sends 8D 14 anyway)",
    ]

    private static func sh1107Sources(size: String, mux: String) -> [PanelField: String] {
        [
            .columnOffset: "0: RAM columns are COM lines on the SH1107 (a shifted module is display_offset)",
            .multiplex: mux,
            .comPins: "the SH1107 has no DAh command",
            .displayOffset: mux,
            .segmentRemap: "A0 upright in luma and u8g2 sh1107 \(size)",
            .comScan: "C0 upright in luma and u8g2 sh1107 \(size)",
            .clockDivide: "D5 50: SH1107 POR (luma 51 / 50, u8g2 50)",
            .precharge: "D9 22: SH1107 POR (luma 22, u8g2 22)",
            .vcomh: "DB 35: SH1107 POR (luma 35, u8g2 35)",
            .contrast: "81 80: SH1107 POR (luma 7F / 2F, u8g2 2F)",
            .extraInit: "none",
        ]
    }
}
