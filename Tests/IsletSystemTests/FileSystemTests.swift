import Glibc
import IsletErrno
import IsletSystem
import Testing

/// A fresh directory under /tmp, removed by `clean`.
func makeScratch() -> String {
    var template = Array("/tmp/islet-system-XXXXXX".utf8CString)
    guard let p = mkdtemp(&template) else { return "/tmp" }
    return String(cString: p)
}

func clean(_ dir: String) {
    for name in (try? FileSystem.directoryEntries(dir)) ?? [] { unlink(dir + "/" + name) }
    rmdir(dir)
}

@Suite("IsletSystem: files")
struct FileSystemTests {
    @Test func errnoValuesHaveTheirNamesAndTheCLibrarysText() {
        #expect(Errno.noSuchFileOrDirectory.code == ENOENT)
        #expect(Errno.remoteIO.code == EREMOTEIO)
        #expect(Errno.wouldBlock.isWouldBlock && Errno(EWOULDBLOCK).isWouldBlock)
        #expect("\(Errno.noSuchFileOrDirectory)" == "No such file or directory")
        #expect("\(SystemError("open /x", .permissionDenied))" == "open /x: Permission denied")
    }

    @Test func readFileReadsRegularFilesAndNamesWhatFailed() throws {
        let dir = makeScratch()
        defer { clean(dir) }
        try FileSystem.writeFile(dir + "/a", Array("hello\n".utf8))
        #expect(try FileSystem.readFile(dir + "/a").get() == Array("hello\n".utf8))
        guard case .failure(let missing) = FileSystem.readFile(dir + "/none") else { Issue.record("read a missing file"); return }
        #expect(missing.errno == .noSuchFileOrDirectory && missing.operation == "open \(dir)/none")
        guard case .failure(let big) = FileSystem.readFile(dir + "/a", limit: 3) else { Issue.record("read past the limit"); return }
        #expect(big.errno == .fileTooLarge && big.operation == "read \(dir)/a")
    }

    /// A FIFO must neither block open(2) nor be read: it is refused as not a regular file.
    @Test func readFileRefusesAFIFOWithoutWaiting() {
        let dir = makeScratch()
        defer { clean(dir) }
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        guard case .failure(let e) = FileSystem.readFile(dir + "/fifo") else { Issue.record("read a FIFO"); return }
        #expect(e.description.contains("not a regular file"))
        #expect(e.errno == .invalidArgument)
    }

    @Test func symlinksAreReportedOrRefusedWhenNotFollowed() throws {
        let dir = makeScratch()
        defer { clean(dir) }
        try FileSystem.writeFile(dir + "/target", [1, 2, 3])
        #expect(symlink(dir + "/target", dir + "/link") == 0)
        #expect(try FileSystem.status(dir + "/link").kind == .regular)
        #expect(try FileSystem.status(dir + "/link", followLinks: false).kind == .symbolicLink)
        #expect(try FileSystem.status(dir).kind == .directory)
        guard case .failure = FileSystem.readFile(dir + "/link", followLinks: false) else { Issue.record("followed a link"); return }
        #expect(try FileSystem.readFile(dir + "/link").get() == [1, 2, 3])
    }

    @Test func exclusiveCreateWriteSyncRenameIsTheAtomicSave() throws {
        let dir = makeScratch()
        defer { clean(dir) }
        let tmp = dir + "/f.tmp"
        let fd = try FileDescriptor.open(tmp, [.writeOnly, .create, .exclusive, .noFollow], permissions: 0o640)
        #expect(throws: SystemError.self) { _ = try FileDescriptor.open(tmp, [.writeOnly, .create, .exclusive]) }
        do { _ = try FileDescriptor.open(tmp, [.writeOnly, .create, .exclusive]) } catch { #expect(error.errno == .fileExists) }
        try fd.writeAll(Array("data".utf8))
        try fd.sync()
        #expect(try fd.status().permissions == 0o640 & ~currentUmask())
        fd.close()
        fd.close()   // a second close is nothing
        try FileSystem.rename(tmp, to: dir + "/f")
        let d = try FileDescriptor.open(dir, [.directory])
        try d.sync()
        #expect(try FileSystem.readFile(dir + "/f").get() == Array("data".utf8))
        #expect(!FileSystem.exists(tmp) && FileSystem.exists(dir + "/f"))
        do { try FileSystem.rename(tmp, to: dir + "/g") } catch {
            #expect(error.operation == "rename \(tmp) to \(dir)/g" && error.errno == .noSuchFileOrDirectory)
        }
        try FileSystem.remove(dir + "/f")
        #expect(throws: SystemError.self) { try FileSystem.remove(dir + "/f") }
    }

    @Test func permissionsGroupsAndDirectoryListings() throws {
        let dir = makeScratch()
        defer { clean(dir) }
        try FileSystem.writeFile(dir + "/b", [])
        try FileSystem.writeFile(dir + "/a", [])
        #expect(try FileSystem.directoryEntries(dir).sorted() == ["a", "b"])
        try FileSystem.setPermissions(dir + "/a", 0o600)
        let st = try FileSystem.status(dir + "/a")
        #expect(st.permissions == 0o600 && st.owner == Identity.effectiveUserID)
        try FileSystem.setGroup(dir + "/a", Identity.effectiveGroupID)
        #expect(Identity.groupName(of: st.group) != nil)
        #expect(Identity.groupID(named: "islet-no-such-group") == nil)
        #expect(Identity.processID == getpid())
        #expect(throws: SystemError.self) { _ = try FileSystem.directoryEntries(dir + "/none") }
    }
}

private func currentUmask() -> UInt32 {
    let m = umask(0o022)
    umask(m)
    return UInt32(m)
}
