/// Counts in messages, singular or plural as English wants them: "1 page", "2 pages", "0 tags".
public enum Wording {
    /// `count` followed by `noun` (singular), or `plural` (default: `noun` + "s") unless count is 1.
    public static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
