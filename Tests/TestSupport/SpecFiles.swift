import Foundation
import XCTest

/// The error for a missing spec file: a skip on a developer's machine, a failure where `CI` is set,
/// because CI always has `../shared/spec` and its absence there is a broken checkout, not a pass.
public func specMissing(_ message: String) -> Error {
    if let ci = ProcessInfo.processInfo.environment["CI"], !ci.isEmpty {
        return SpecMissingInCI(message: message + " (CI is set, so this fails instead of skipping)")
    }
    return XCTSkip(message)
}

public struct SpecMissingInCI: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
