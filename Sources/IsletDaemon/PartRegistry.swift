import IsletSettings
import IsletStore
import IsletNetwork
import IsletWeb

/// Every part there is, one line each (docs/ARCHITECTURE.md "Adding a part").
package enum PartRegistry {
    /// The parts' settings types: the config's sections beyond the core's.
    package static let settings: [any PartSettings.Type] = [MQTTSettings.self, SyncSettings.self, WebSettings.self]
    /// The parts' slices of the state file.
    package static let slices: [any SavedSlice.Type] = [SavedLedger.self]
}
