import Foundation

/// Quoting for the replay lines a report prints.
enum Shell {
    /// `text` as one shell word: unchanged when it is plain, else in single quotes.
    static func quoted(_ text: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./:=@%+,"))
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `NAME=value ` for each variable, in name order, each value one shell word ("" when empty).
    static func assignments(_ environment: [String: String]) -> String {
        environment.keys.sorted().map { "\($0)=\(quoted(environment[$0] ?? "")) " }.joined()
    }
}
