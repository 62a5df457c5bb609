/// "Did you mean" for a misspelt command, subcommand or option: the known name nearest by edit
/// distance (a swap of two neighbouring letters counts as one edit, as it is one slip of the hand),
/// or the only name the input begins.
enum Suggestion {
    /// The best candidate for `input`, or nil when none is close enough to be a likely typo.
    static func closest(to input: String, among candidates: [String]) -> String? {
        guard !input.isEmpty else { return nil }
        let typed = Array(input.lowercased())
        // Longer words tolerate more slips; a short one with two changes is another word.
        let allowed = max(1, min(3, (typed.count + 1) / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        if let best { return best.name }
        let extended = candidates.filter { $0.lowercased().hasPrefix(input.lowercased()) }
        return typed.count >= 3 && extended.count == 1 ? extended[0] : nil
    }

    /// ` (did you mean X?)` with `prefix` before the name, or "" when nothing is close.
    static func hint(_ input: String, among candidates: [String], prefix: String = "") -> String {
        closest(to: input, among: candidates).map { " (did you mean \(prefix)\($0)?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
    /// of adjacent characters, each costing one.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
