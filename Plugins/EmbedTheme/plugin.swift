// Build-tool plugin: embeds themes/default into the DefaultTheme module, so the `blog`
// binary carries its default theme and works from any directory.
import Foundation
import PackagePlugin

@main
struct EmbedTheme: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let themeDir = context.package.directory.appending(["themes", "default"])
        let output = context.pluginWorkDirectory.appending(["EmbeddedTheme.swift"])
        var inputs: [Path] = []
        let root = URL(fileURLWithPath: themeDir.string)
        if let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker {
                let values = try? url.resourceValues(forKeys: [.isRegularFileKey])
                if values?.isRegularFile == true { inputs.append(Path(url.path)) }
            }
        }
        inputs.sort { $0.string < $1.string }
        return [
            .buildCommand(
                displayName: "Embedding the default theme",
                executable: try context.tool(named: "embed-theme").path,
                // The file list is part of the command, so adding or removing a theme file re-runs it
                // (edits to existing files are caught through inputFiles).
                arguments: [themeDir.string, output.string, "--files=" + inputs.map(\.lastComponent).joined(separator: ",")],
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
