// Build-time tool: IsletWeb's page as served (docs/WEB.md "Delivery"). Reads the Assets files and
// served.txt, draws the icons with IsletIcons (the pill's own drawing), and writes
// `PageAssets.embedded`: each address's bytes, its content hash, its name with that hash, and its
// gzip made here once by libdeflate, so isletd compresses nothing at run time and reads no files.
// Usage: islet-page-gen OUTPUT.swift ASSET...
//   ASSET: every file of Assets, served.txt among them.
import IsletFrame
import IsletSystem

func fail(_ message: String) -> Never {
    StandardStream.error.writeLine("islet-page-gen: \(message)")
    ThisProcess.exit(1)
}

func readBytes(_ path: String, limit: Int) -> [UInt8] {
    switch FileSystem.readFile(path, limit: limit) {
    case .success(let b): return b
    case .failure(let e): fail("\(path): cannot read: \(e.errno)")
    }
}

let args = CommandLine.arguments
guard args.count >= 3 else { fail("usage: islet-page-gen OUTPUT.swift ASSET...") }
var servedText: (path: String, bytes: [UInt8])?
var sources: [String: PageSource] = [:]
for (name, bytes) in drawnIcons() { sources[name] = PageSource(path: "(drawn by islet-page-gen)", bytes: bytes, drawn: true) }
for path in args.dropFirst(2) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let bytes = readBytes(path, limit: 1 << 20)
    if name == "served.txt" { servedText = (path, bytes); continue }
    do throws(AssetError) { _ = try assetName(path) } catch { fail(error.description) }
    if sources[name] != nil { fail("\(path): \(name) is also the name of an icon islet-page-gen draws") }
    sources[name] = PageSource(path: path, bytes: bytes)
}
guard let servedText else { fail("Assets has no served.txt (which address serves which files)") }
do throws(AssetError) {
    let text = try assetText(servedText.path, servedText.bytes)
    let lines = try ServedLine.parse(text, file: servedText.path)
    let page = try makePage(lines, sources: sources, servedFile: servedText.path, compress: gzip)
    let out = embeddedSource(page)
    do { try FileSystem.writeFile(args[1], Array(out.utf8)) } catch { fail("\(args[1]): cannot write: \(error.errno)") }
} catch {
    fail(error.description)
}
