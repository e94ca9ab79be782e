import PackagePlugin
import Foundation

/// Compiles a target's text into Swift at build time, so the daemon installed in /usr/local/bin
/// needs no data files, and no Bundle.module (which would pull Foundation into the renderer):
/// `Localization/*.strings`, the localized string tables (IsletRender). The page's assets are
/// IsletPagePlugin's.
@main
struct IsletStringsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let source = target as? SourceModuleTarget else { return [] }
        let root = context.package.directoryURL.appending(path: "Sources/\(source.name)")
        let tool = try context.tool(named: "islet-strings-gen").url
        var commands: [Command] = []
        if let inputs = try files(in: root.appending(path: "Localization"), where: { $0.hasSuffix(".strings") }) {
            let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedStrings.swift")
            commands.append(.buildCommand(
                displayName: "Compiling localized strings (\(inputs.count) languages)",
                executable: tool,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs,
                outputFiles: [output]))
        }
        guard !commands.isEmpty else { throw NothingToCompile(target: source.name) }
        return commands
    }

    /// The folder's files whose names pass `keep`, sorted; nil when there is no such folder.
    private func files(in dir: URL, where keep: (String) -> Bool) throws -> [URL]? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path(), isDirectory: &isFolder), isFolder.boolValue else { return nil }
        return try FileManager.default.contentsOfDirectory(atPath: dir.path()).filter(keep).sorted()
            .map { dir.appending(path: $0) }
    }
}

struct NothingToCompile: Error, CustomStringConvertible {
    let target: String
    var description: String { "IsletStringsPlugin: Sources/\(target) has no Localization folder" }
}
