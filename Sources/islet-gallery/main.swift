// `make gallery`: writes the review contact sheets (docs/gallery by default).
import IsletRender
#if canImport(Glibc)
import Glibc
#endif

let args = CommandLine.arguments
let directory = args.count > 1 ? args[1] : "docs/gallery"
do {
    let renderer = try Renderer()
    for path in try Gallery.writeAll(to: directory, renderer: renderer) { print("wrote \(path)") }
} catch {
    print("islet-gallery: \(error)")
    exit(1)
}
