@testable import BlogSite
import TestSupport
import XCTest

/// `SiteModel.relatedPosts` keeps the best five of each post's candidates as it goes; this
/// compares it with the definition (score every candidate, sort them all, take five).
final class RelatedPostsTests: XCTestCase {
    static func reference(postTags: [[Int]], tags: [TagInfo]) -> [[Int]] {
        postTags.indices.map { index in
            var scores: [Int: Double] = [:]
            for tagIndex in postTags[index] {
                let members = tags[tagIndex].postIndices
                let weight = 1.0 + 1.0 / Double(members.count)
                var low = 0
                var high = members.count
                if members.count > 400 {
                    let position = members.firstIndex(of: index)!
                    low = max(0, min(position - 200, members.count - 400))
                    high = low + 400
                }
                for other in members[low..<high] where other != index { scores[other, default: 0] += weight }
            }
            let ranked = scores.sorted { a, b in
                if a.value != b.value { return a.value > b.value }
                let da = abs(a.key - index), db = abs(b.key - index)
                return da != db ? da < db : a.key < b.key
            }
            return ranked.prefix(5).map(\.key)
        }
    }

    func testMatchesScoringEveryCandidate() {
        var generator = SplitMix64(seed: 7)
        for (posts, tagCount) in [(30, 4), (120, 9), (900, 14)] {
            // Tag 0 is on most posts (windowed once it has more than 400); the others are rarer,
            // so scores tie often and the distance and index break the ties.
            var members = [[Int]](repeating: [], count: tagCount)
            var postTags = [[Int]](repeating: [], count: posts)
            for post in 0..<posts {
                for tag in 0..<tagCount where Int.random(in: 0..<100, using: &generator) < (tag == 0 ? 80 : 12) {
                    members[tag].append(post)
                    postTags[post].append(tag)
                }
            }
            let tags = members.enumerated().map { TagInfo(key: "t\($0.offset)", name: "t\($0.offset)", slug: "t\($0.offset)", postIndices: $0.element) }
            XCTAssertEqual(SiteModel.relatedPosts(postTags: postTags, tags: tags), Self.reference(postTags: postTags, tags: tags), "\(posts) posts")
        }
    }
}
