/// Where a host persists its activities (the daemon's `FileStore`). The book itself writes
/// nothing: its host saves `ActivityBook.activities` and reports the outcome with `finishStart`.
public protocol ActivityStore: Sendable {
    func save(_ activities: [Activity]) async throws
}
