import PackagePlugin
import Foundation

/// Compiles the localized string tables (Sources/IsletRender/Localization/*.strings) into Swift
/// at build time: the daemon installed in /usr/local/bin then needs no data files, and no
/// Bundle.module (which would pull Foundation into the renderer).
@main
struct IsletStringsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let source = target as? SourceModuleTarget else { return [] }
        let dir = context.package.directoryURL.appending(path: "Sources/\(source.name)/Localization")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path())
            .filter { $0.hasSuffix(".strings") }.sorted()
        let inputs = names.map { dir.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedStrings.swift")
        return [.buildCommand(
            displayName: "Compiling localized strings (\(names.count) languages)",
            executable: try context.tool(named: "islet-strings-gen").url,
            arguments: [output.path()] + inputs.map { $0.path() },
            inputFiles: inputs,
            outputFiles: [output])]
    }
}
