// The supported modules, one row each, every value with its source. Each source names the file
// and line where a peer sends that byte, or the datasheet page that gives it. Read for this:
// luma.oled@4f73ee3 (rm-hull/luma.oled; PyPI 3.16.0 sends the same init), u8g2@ab9e48b
// (olikraus/u8g2), Linux v6.1.192 drivers/gpu/drm/solomon/ssd130x.c (Debian linux-source-6.1
// 6.1.192-3; mainline's variants table at 1256eb42 holds the same values), and the datasheets in
// the shared folder: SSD1306 Rev 1.1 (+ App Note Rev 0.2), SSD1309 Rev 1.1, SH1106 V2.2,
// SH1107 V2.1. Short forms: L = luma.oled@4f73ee3 luma/oled/device/__init__.py, U = u8g2@ab9e48b
// csrc/u8x8_d_, K = linux v6.1.192 drivers/gpu/drm/solomon/ssd130x.c. docs/DISPLAY.md lists where
// the peers disagree.

extension PanelModel {
    /// Every supported module, one row each.
    public static let all: [PanelModel] = [
        ssd1306(128, 64, offset: 0, mux: 0x3F, pins: 0x12, src: [
            .columnOffset: "0: L:330 colstart 0; U ssd1306_128x64_noname.c:353-354 x offset 0/0",
            .multiplex: "A8 3F: SSD1306 Rev 1.1 p. 37 §10.1.11 (64 MUX); L:330,350; U ssd1306_128x64_noname.c:49",
            .comPins: "DA 12: SSD1306 p. 40 §10.1.18, Table 10-3 p. 40-42; L:330,357; U ssd1306_128x64_noname.c:61",
        ]),
        ssd1306(128, 32, offset: 0, mux: 0x1F, pins: 0x02, contrast: 0x8F, src: [
            .columnOffset: "0: L:331 colstart 0; U ssd1306_128x32.c:198-199 x offset 0/0",
            .multiplex: "A8 1F: SSD1306 p. 37 §10.1.11 (32 MUX); L:331,350; U ssd1306_128x32.c:49",
            .comPins: "DA 02 sequential: SSD1306 p. 40 §10.1.18; L:331,357; U ssd1306_128x32.c:61",
            .contrast: "81 8F: U ssd1306_128x32.c:62 (L:363 sends CF for every size)",
        ]),
        ssd1306(96, 16, offset: 0, mux: 0x0F, pins: 0x02, clock: 0x60, src: [
            .columnOffset: "0: L:332 colstart 0 (luma 72440da, #368); U ssd1306_96x16.c:190-191 x offset 0, flipped 32 (= 128 - 96)",
            .multiplex: "A8 0F: SSD1306 p. 37 §10.1.11 (16 MUX); L:332,350; U ssd1306_96x16.c:49",
            .comPins: "DA 02: SSD1306 p. 40 §10.1.18; L:332,357; U ssd1306_96x16.c:61",
            .clockDivide: "D5 60: L:332,349 (U ssd1306_96x16.c:48 sends 80)",
            .contrast: "81 CF: L:363 (U ssd1306_96x16.c:62 sends AF)",
            .vcomh: "DB 40: L:359 (U ssd1306_96x16.c:64 sends 20)",
        ]),
        // The one peer with this size (u8g2) is the size's source for its brightness too: the
        // 0.42" glass is specified for its own values, not the 0.96" modules' (issue 11 §1).
        ssd1306(72, 40, offset: 28, mux: 0x27, pins: 0x12, precharge: 0x22, vcomh: 0x20, contrast: 0xAF, extra: [[Opcode.powerControl, 0x30]], src: [
            .columnOffset: "28: U ssd1306_72x40.c:240-241 x offset 28/28 (luma has no 72x40)",
            .multiplex: "A8 27 (40 MUX): U ssd1306_72x40.c:96",
            .comPins: "DA 12: U ssd1306_72x40.c:113",
            .extraInit: "AD 30 internal IREF: U ssd1306_72x40.c:98 (u8g2 issue #1047: very dim without it); no ADh in SSD1306 Rev 1.1",
            .precharge: "D9 22: U ssd1306_72x40.c:115, the only peer with this size (luma has no 72x40)",
            .vcomh: "DB 20: U ssd1306_72x40.c:116 (also the SSD1306 POR, p. 32 Table 9-1)",
            .contrast: "81 AF: U ssd1306_72x40.c:114",
        ]),
        ssd1306(64, 48, offset: 32, mux: 0x2F, pins: 0x12, src: [
            .columnOffset: "32: L:333 colstart 32; U ssd1306_64x48.c:190-191 x offset 32/32",
            .multiplex: "A8 2F: SSD1306 p. 37 §10.1.11 (48 MUX); L:333,350; U ssd1306_64x48.c:49",
            .comPins: "DA 12: L:333,357; U ssd1306_64x48.c:61",
            .precharge: "D9 F1: L:358 (U ssd1306_64x48.c:63 sends 22)",
            .vcomh: "DB 40: L:359 (U ssd1306_64x48.c:64 sends 00)",
        ]),
        ssd1306(64, 32, offset: 32, mux: 0x1F, pins: 0x12, src: [
            .columnOffset: "32: L:334 colstart 32; U ssd1306_64x32.c:159-160 x offset 32/32",
            .multiplex: "A8 1F: L:334,350; U ssd1306_64x32.c:222 (_1f); the 48-line variant, U ssd1306_64x32.c:173 (noname) A8 2F, is multiplex = 48",
            .comPins: "DA 12: L:334,357; U ssd1306_64x32.c:231",
            .precharge: "D9 F1: L:358 (U ssd1306_64x32.c:233 sends 22)",
            .vcomh: "DB 40: L:359 (U ssd1306_64x32.c:234 sends 00)",
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
                   sources: sh1107Sources(size: "64x128",
                                          mux: "A8 7F: L:252,265; U sh1107.c:256 (SH1107 V2.1 p. 41 item 6: 1-128 MUX)",
                                          offset: "D3 60: L:252,267; U sh1107.c:257 (SH1107 V2.1 p. 32 item 9)",
                                          remap: "A0: U sh1107.c:253; luma sends none (POR A0h, SH1107 V2.1 p. 41 item 5)",
                                          scan: "C0: U sh1107.c:254; luma sends none (POR C0h, SH1107 V2.1 p. 42 item 13)",
                                          clock: "D5 50: SH1107 V2.1 p. 42 item 14 POR 50h (L:268 sends 80, U sh1107.c:258 51)",
                                          contrast: "81 80: SH1107 V2.1 p. 41 item 4 POR 80h (L:274 sends 7F, U sh1107.c:247 2F)")),
        PanelModel(controller: .sh1107, width: 128, height: 128, columnOffset: 0, multiplex: 0x7F, comPins: nil,
                   segmentRemap: false, comScanReversed: false,
                   clockDivide: 0x50, precharge: 0x22, vcomh: 0x35, contrast: 0x80,
                   sources: sh1107Sources(size: "128x128",
                                          mux: "A8 7F (128 MUX, POR 7Fh SH1107 V2.1 p. 41 item 6): L:254,265; U sh1107.c:493",
                                          offset: "D3 00: L:254,267; POR 00h (SH1107 V2.1 p. 41 item 9); U sh1107.c:494 sends none",
                                          remap: "A0: U sh1107.c:490; luma sends none (POR A0h, SH1107 V2.1 p. 41 item 5)",
                                          scan: "C0: U sh1107.c:491; luma sends none (POR C0h, SH1107 V2.1 p. 42 item 13)",
                                          clock: "D5 50: SH1107 V2.1 p. 42 item 14 POR 50h; U sh1107.c:495 (L:268 sends 80)",
                                          contrast: "81 80: SH1107 V2.1 p. 41 item 4 POR 80h (L:274 sends 7F, U sh1107.c:484 2F)")),
    ]

    /// An SSD1306 charge-pump module: the values luma.oled and u8g2 agree on for cheap modules.
    private static func ssd1306(_ w: Int, _ h: Int, offset: Int, mux: UInt8, pins: UInt8, clock: UInt8 = 0x80,
                                precharge: UInt8 = 0xF1, vcomh: UInt8 = 0x40,
                                contrast: UInt8 = 0xCF, extra: [[UInt8]] = [], src: [PanelField: String]) -> PanelModel {
        var sources: [PanelField: String] = [
            .displayOffset: "D3 00: SSD1306 p. 31 Table 9-1 (reset 00h), p. 37 §10.1.15; L:351; U ssd1306_128x64_noname.c:50",
            .segmentRemap: "A1 upright (glass wired SEG127 at the left): L:355; U ssd1306_128x64_noname.c:55; SSD1306 p. 36 §10.1.8",
            .comScan: "C8 upright: L:356; U ssd1306_128x64_noname.c:56; SSD1306 p. 37 §10.1.14",
            .clockDivide: "D5 80: SSD1306 p. 40 §10.1.16 (POR: ratio 1, Fosc 1000b); L:349; U ssd1306_128x64_noname.c:48",
            .precharge: "D9 F1 (POR 22h, SSD1306 p. 32 Table 9-1): L:358; U ssd1306_128x64_noname.c:64",
            .vcomh: "DB 40 (POR 20h, SSD1306 p. 32 Table 9-1): L:359; U ssd1306_128x64_noname.c:65",
            .contrast: "81 CF (POR 7Fh, SSD1306 p. 23 §8.5): L:363; U ssd1306_128x64_noname.c:63",
            .extraInit: "none: the common sequence",
        ]
        sources.merge(src) { _, new in new }
        return PanelModel(controller: .ssd1306, width: w, height: h, columnOffset: offset, multiplex: mux, comPins: pins,
                          clockDivide: clock, precharge: precharge, vcomh: vcomh, contrast: contrast, extraInit: extra, sources: sources)
    }

    private static let sh1106Sources: [PanelField: String] = [
        .columnOffset: "2: 132-column RAM (SH1106 V2.2 p. 16 Figure 8); L:203 column 02; U ssd1306_128x64_noname.c:473-474 x offset 2 (modules wired at 0: luma issue #376)",
        .multiplex: "A8 3F: SH1106 V2.2 p. 30 item 9 (POR 3Fh); L:156,171; U ssd1306_128x64_noname.c:49",
        .comPins: "DA 12: SH1106 V2.2 p. 31 item 17 (POR 12h); L:176; U ssd1306_128x64_noname.c:61",
        .displayOffset: "D3 00: SH1106 V2.2 p. 31 item 14 (POR 00h); L:156,173; U ssd1306_128x64_noname.c:50",
        .segmentRemap: "A1 upright: L:169; U ssd1306_128x64_noname.c:55; SH1106 V2.2 p. 21 item 6",
        .comScan: "C8 upright: L:167; U ssd1306_128x64_noname.c:56; SH1106 V2.2 p. 24 item 13",
        .clockDivide: "D5 50: SH1106 V2.2 p. 31 item 15 POR 50h; K:99-100; U ssd1306_128x64_noname.c:159 winstar (L:174 F0, U :48 noname 80)",
        .precharge: "D9 22: SH1106 V2.2 p. 31 item 16 POR 22h; L:175; K:818,821; U ssd1306_128x64_noname.c:164 winstar (U :64 noname F1)",
        .vcomh: "DB 35: SH1106 V2.2 p. 31 item 18 POR 35h; U ssd1306_128x64_noname.c:165 winstar (L:177 20, K:98 40, U :65 noname 40)",
        .contrast: "81 80: SH1106 V2.2 p. 30 item 5 POR 80h (L:180 7F, K:836 7F, U ssd1306_128x64_noname.c:63 CF, :167 FF)",
        .extraInit: "none (AD 8B, SH1106 V2.2 p. 30 item 10, is the driver's own DC-DC step)",
    ]

    private static let ssd1309Sources: [PanelField: String] = [
        .columnOffset: "0: U ssd1309.c:281-282 noname0 x offset 0 (noname2, U ssd1309.c:148, is 2: column_offset = 2); L:330 colstart 0",
        .multiplex: "A8 3F: SSD1309 Rev 1.1 p. 33 Table 9-4 (reset 3Fh), p. 39 §10.11; L:330,350; K:322 (height - 1); U ssd1309.c:161 sends none",
        .comPins: "DA 12: SSD1309 p. 33 Table 9-4, p. 42 §10.18; L:357; K:361-364; U ssd1309.c:171",
        .displayOffset: "D3 00: SSD1309 p. 33 Table 9-4; L:351; K:327,815",
        .segmentRemap: "A1 upright: L:355; U ssd1309.c:165",
        .comScan: "C8 upright: L:356; U ssd1309.c:166",
        .clockDivide: "D5 70: SSD1309 p. 34 Table 9-5 reset ratio 0000b, Fosc 0111b (K:122-123 and U ssd1309.c:160 send A0, L:349 80)",
        .precharge: "D9 22: SSD1309 p. 42 §10.17 reset 2 DCLKs; K:818,821 (L:358 F1, U ssd1309.c:174 D3)",
        .vcomh: "DB 34: SSD1309 p. 34 Table 9-5 reset 34h; K:121 (L:359 40, U ssd1309.c:175 20)",
        .contrast: "81 7F: SSD1309 p. 27 Table 9-1 reset; K:836 (L:363 CF, U ssd1309.c:173 6F)",
        .extraInit: "none; no 8Dh: SSD1309 Tables 9-1..9-5 (p. 27-34) list none (L:353 sends 8D 14 anyway)",
    ]

    private static func sh1107Sources(size: String, mux: String, offset: String, remap: String, scan: String,
                                      clock: String, contrast: String) -> [PanelField: String] {
        [
            .columnOffset: "0: RAM columns are COM lines on the SH1107 (a shifted module is display_offset)",
            .multiplex: mux,
            .comPins: "none: no DAh in SH1107 V2.1 p. 41-42 command table (L:270 sends DA 12 anyway)",
            .displayOffset: offset,
            .segmentRemap: remap,
            .comScan: scan,
            .clockDivide: clock,
            .precharge: "D9 22: SH1107 V2.1 p. 42 item 15 POR 22h; L:269; U sh1107.c:\(size == "64x128" ? "259" : "496")",
            .vcomh: "DB 35: SH1107 V2.1 p. 42 item 16 POR 35h; L:271; U sh1107.c:\(size == "64x128" ? "260" : "497")",
            .contrast: contrast,
            .extraInit: "none (AD 81, SH1107 V2.1 p. 41 item 10, is the driver's own DC-DC step)",
        ]
    }
}
