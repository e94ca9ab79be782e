import Testing
import IsletProtocol

/// settings.json and the backup: untrusted bytes, every bound checked before a value is read.
struct SettingsDocumentTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func aBackupRoundTrips() throws {
        let values = ["session.minutes": "25", "display.night": "22:30-07:00"]
        #expect(try SettingsDocument.backup(SettingsDocument.encodeBackup(values)) == values)
        #expect(try SettingsDocument.overlay(SettingsDocument.encodeOverlay(values)) == values)
        #expect(try SettingsDocument.backup(bytes(#"{"islet_backup":1}"#)) == [:])
    }

    @Test func whatIsRefusedAndWhy() {
        let cases: [(String, String)] = [
            (#"{"islet_backup":3,"settings":{}}"#, "version 3, made by a newer Islet; this one reads versions 1 to 2"),
            (#"{"islet_backup":1,"settings":{"session.minutes":"25","session.minutes":"30"}}"#, "appears twice"),
            (#"{"islet_backup":1,"settings":{"display.bus":"/dev/i2c-0"}}"#, "not a setting the page may change"),
            (#"{"islet_backup":1,"settings":{"session.minutes":25}}"#, "must be a string"),
            (#"{"islet_backup":1,"settings":[]}"#, "must be an object"),
            (#"{"settings":{}}"#, "no \"islet_backup\""),
            (#"{"islet_backup":1.5}"#, "whole number"),
            // A version in quotes has a version, of the wrong type: said so, not "has none".
            (#"{"islet_backup":"1","settings":{}}"#, #""islet_backup" must be a whole number from 1, not a string"#),
            (#"{"islet_backup":1,"activities":[]}"#, "version 1, which holds no activities"),
            (#"{"islet_backup":2,"activities":{}}"#, "must be an array"),
            (#"{"islet_backup":2,"activities":[\#(Array(repeating: "{}", count: 17).joined(separator: ","))]}"#, "17 activities; at most 16"),
            (#"{"islet_backup":2,"tasks":[]}"#, "unknown field \"tasks\"; accepted: islet_backup, settings, activities"),
            (#"{"islet_settings":1,"values":{}}"#, "unknown field"),
            (#"[1]"#, "must be a JSON object"),
            (#"{"islet_backup":1,"settings":{"session.language":"en\u0007"}}"#, "control character"),
            ("{", "not valid JSON"),
        ]
        for (text, why) in cases {
            #expect(throws: SettingsDocument.Problem.self, "\(text)") { try SettingsDocument.backup(bytes(text)) }
            do { _ = try SettingsDocument.backup(bytes(text)) } catch { #expect(error.message.contains(why), "\(text): \(error.message)") }
        }
        let long = #"{"islet_backup":1,"settings":{"session.language":""# + String(repeating: "a", count: 300) + #""}}"#
        #expect(throws: SettingsDocument.Problem.self) { try SettingsDocument.backup(bytes(long)) }
    }

    @Test func anOversizedDocumentIsRefusedUnread() {
        let big = #"{"islet_backup":1,"settings":{}}"# + String(repeating: " ", count: SettingsDocument.maximumBackupBytes)
        do { _ = try SettingsDocument.backup(bytes(big)); Issue.record("read") } catch {
            #expect(error.message.contains("at most \(SettingsDocument.maximumBackupBytes)"))
        }
        let overlay = #"{"islet_settings":1,"values":{}}"# + String(repeating: " ", count: SettingsDocument.maximumBytes)
        #expect(throws: SettingsDocument.Problem.self) { try SettingsDocument.overlay(bytes(overlay)) }
        // The backup's bound is what one request line carries, the page's POST body the same 16 KiB.
        #expect(SettingsDocument.maximumBackupBytes == 16 * 1024)
    }

    @Test func aBackupWithActivitiesIsVersion2AndKeepsThemAsGiven() throws {
        let list = JSONValue.array([.object(["any": .string("thing")])])
        let b = try SettingsDocument.readBackup(SettingsDocument.encodeBackup(["session.minutes": "5"], activities: list))
        #expect(b == SettingsDocument.Backup(settings: ["session.minutes": "5"], activities: list))
        #expect(String(decoding: SettingsDocument.encodeBackup([:], activities: .array([])), as: UTF8.self).contains(#""islet_backup" : 2"#))
        #expect(String(decoding: SettingsDocument.encodeBackup([:]), as: UTF8.self).contains(#""islet_backup" : 1"#))
        let export = try ControlRequest.parse(bytes(#"{"op":"settings_export","activities":true}"#))
        #expect(export.settings.activities)
        #expect(try ControlRequest.parse(export.encodedLine().dropLast().map { $0 }).settings.activities)
        #expect(throws: ProtocolError.self) { try ControlRequest.parse(bytes(#"{"op":"settings_export","activities":"yes"}"#)) }
    }

    @Test func theOpsFields() throws {
        let set = try ControlRequest.parse(bytes(#"{"op":"settings_set","key":"session.minutes","value":25}"#))
        #expect(set.op == .settingsSet && set.settings == SettingsRequest(key: "session.minutes", value: "25"))
        #expect(try ControlRequest.parse(set.encodedLine().dropLast().map { $0 }).settings == set.settings)
        let imp = try ControlRequest.parse(bytes(#"{"op":"settings_import","backup":"{}"}"#))
        #expect(imp.settings.backup == "{}")
        for bad in [#"{"op":"settings_set","key":"display.bus","value":"mock"}"#, #"{"op":"settings_set","key":"session.minutes"}"#,
                    #"{"op":"settings_reset","key":"session.minutes","timer":"a"}"#, #"{"op":"settings","key":"x"}"#,
                    #"{"op":"settings_set","key":"session.minutes","value":true}"#] {
            #expect(throws: ProtocolError.self, "\(bad)") { try ControlRequest.parse(bytes(bad)) }
        }
    }

    /// settings_set's value: a string or a number (docs/WEB.md "Settings"); what is neither, or a
    /// number no double holds, is said as such.
    @Test func aSettingsValueIsAStringOrAFiniteNumber() throws {
        #expect(try ControlRequest.parse(bytes(#"{"op":"settings_set","key":"session.minutes","value":25}"#)).settings.value == "25")
        let cases: [(String, String, String)] = [
            (#"{"op":"settings_set","key":"session.minutes","value":1e309}"#, "invalid_field", "out of range"),
            (#"{"op":"settings_set","key":"session.minutes","value":-1e309}"#, "invalid_field", "out of range"),
            (#"{"op":"settings_set","key":"session.minutes","value":null}"#, "invalid_field", #""value" must be a string or a number, not null"#),
            (#"{"op":"settings_set","key":"session.minutes","value":true}"#, "invalid_field", "must be a string or a number"),
            (#"{"op":"settings_set","key":"session.minutes"}"#, "missing_field", "needs \"value\""),
        ]
        for (line, code, why) in cases {
            do { _ = try ControlRequest.parse(bytes(line)); Issue.record("\(line) was taken") } catch {
                #expect(error.code == code, "\(line): \(error.code)")
                #expect(error.message.contains(why), "\(line): \(error.message)")
            }
        }
    }
}
