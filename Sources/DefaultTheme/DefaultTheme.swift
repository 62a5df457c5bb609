import Foundation

/// The default theme, compiled into the binary from `themes/default` by the EmbedTheme plugin.
public enum DefaultTheme {
    /// Every file of the theme, keyed by its path relative to the theme folder
    /// (`templates/base.mustache`, `assets/css/main.css`, `theme.yml`).
    public static let files: [String: [UInt8]] = {
        var result: [String: [UInt8]] = [:]
        for (path, base64) in embeddedThemeFiles {
            result[path] = Data(base64Encoded: base64).map { [UInt8]($0) } ?? []
        }
        return result
    }()
}
