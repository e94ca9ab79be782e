import IsletStore
import IsletSync

/// The sync group's slice of the state file, under `sync`: the ledger and hybrid clock
/// (docs/SYNC.md), saved with the activities so a restart's revisions never go back. Written
/// inline (the ledger's own form), as files of every earlier version hold it.
package struct SavedLedger: SavedSlice {
    package static let key = "sync"
    package var ledger: SyncLedger

    package init(ledger: SyncLedger) { self.ledger = ledger }

    package init(from decoder: any Decoder) throws { ledger = try SyncLedger(from: decoder) }
    package func encode(to encoder: any Encoder) throws { try ledger.encode(to: encoder) }

    /// Schema 2 once a recorded activity is one an earlier version could not read.
    package var schema: Int { ledger.entries.values.compactMap(\.record.activity).allSatisfy(\.fitsSchema1) ? 1 : 2 }
}
