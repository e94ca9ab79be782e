import PackagePlugin
import Foundation

/// Makes IsletWeb's page as served (`EmbeddedPage`, docs/WEB.md "Delivery") at build time from
/// Sources/IsletWeb/Assets: served.txt says which address joins which files; the icons are drawn
/// as the renderer draws the pill's (IsletIcons, linked into the tool). Adding a file to the page is one line of served.txt.
@main
struct IsletPagePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let source = target as? SourceModuleTarget else { return [] }
        let dir = context.package.directoryURL.appending(path: "Sources/\(source.name)/Assets")
        // Every file but hidden ones (an editor's swap file): the tool refuses what it cannot name.
        let inputs = try FileManager.default.contentsOfDirectory(atPath: dir.path()).filter { !$0.hasPrefix(".") }.sorted()
            .map { dir.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPage.swift")
        return [.buildCommand(
            displayName: "Making \(source.name)'s page (\(inputs.count) files, icons, gzip)",
            executable: try context.tool(named: "islet-page-gen").url,
            arguments: [output.path()] + inputs.map { $0.path() },
            inputFiles: inputs,
            outputFiles: [output])]
    }
}
