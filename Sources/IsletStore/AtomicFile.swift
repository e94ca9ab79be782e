import IsletSystem

/// The one atomic write of the state directory's files (the state file, the page's
/// settings.json): a temp file, fsync, rename over the old one, fsync of the directory. A reader
/// (or a crash at any point) sees the old file or the new one. Callers serialize their own
/// writes of one path (the temp file's name is shared).
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String, directory: String, mode: UInt32,
                             system sys: any StoreSystem) throws(SystemError) {
        let tmp = path + ".tmp"
        // Exclusive and without following links: a leftover temp file (a crash) or anything
        // planted there (a symlink, a FIFO) is removed, never written through.
        let fd: FileDescriptor
        do throws(SystemError) {
            do throws(SystemError) { fd = try sys.createExclusive(tmp, mode: mode) } catch where error.errno == .fileExists {
                sys.unlink(tmp)
                fd = try sys.createExclusive(tmp, mode: mode)
            }
        } catch { throw SystemError("create \(tmp)", error.errno) }
        do throws(SystemError) {
            try sys.write(fd, bytes)
            do throws(SystemError) { try sys.fsync(fd) } catch { throw SystemError("fsync \(tmp)", error.errno) }
        } catch {
            sys.close(fd)
            sys.unlink(tmp)
            throw error
        }
        sys.close(fd)
        do throws(SystemError) { try sys.rename(tmp, path) } catch {
            sys.unlink(tmp)
            throw SystemError("rename \(tmp) to \(path)", error.errno)
        }
        // The rename itself is durable only once the directory is synced.
        let dfd: FileDescriptor
        do throws(SystemError) { dfd = try sys.openDirectory(directory) } catch { throw SystemError("open \(directory)", error.errno) }
        defer { sys.close(dfd) }
        do throws(SystemError) { try sys.fsync(dfd) } catch { throw SystemError("fsync \(directory)", error.errno) }
    }
}
