import Testing
@testable import IsletRender

struct LocalizationTests {
    @Test(arguments: Localization.languages)
    func everyLanguageHasEveryKey(language: String) throws {
        let table = try #require(Localization.tables[language], "no table for \(language)")
        for key in Localization.Key.allCases {
            let text = try #require(table[key.rawValue], "\(language) lacks \(key.rawValue)")
            #expect(!text.isEmpty)
        }
        // The placeholders must survive translation.
        #expect(table["cycle"]?.contains("{cycle}") == true && table["cycle"]?.contains("{cycles}") == true)
        #expect(table["cycle_open"]?.contains("{cycle}") == true)
        #expect(Set(table.keys) == Set(Localization.Key.allCases.map(\.rawValue)), "unknown keys in \(language)")
    }

    @Test func theSevenLanguagesShip() {
        #expect(Set(Localization.tables.keys) == ["en", "pt", "es", "ja", "zh-Hans", "ar", "he"])
    }

    @Test func cycleLabelFillsNumbers() {
        #expect(Localization.cycleLabel(cycle: 2, of: 3, language: "en") == "Cycle 2 of 3")
        #expect(Localization.cycleLabel(cycle: 2, of: 3, language: "pt") == "Ciclo 2 de 3")
        #expect(Localization.cycleLabel(cycle: 4, of: nil, language: "es") == "Ciclo 4")
    }

    @Test func languageIsChosenByCodeWithEnglishFallback() {
        #expect(Localization.string(.paused, language: "fr") == "Paused")
        #expect(Localization.string(.paused, language: "pt-BR") == "Pausado")
        #expect(Localization.string(.complete, language: "zh-CN") == "已完成")
        #expect(Localization.string(.paused, language: "HE") == "מושהה")
        #expect(Localization.isRightToLeft("ar") && Localization.isRightToLeft("he") && !Localization.isRightToLeft("ja"))
    }
}
