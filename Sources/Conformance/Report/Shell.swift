import Foundation

/// Quoting for the replay lines a report prints.
enum Shell {
    /// `text` as one shell word: unchanged when it is plain, else in single quotes.
    static func quoted(_ text: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./:=@%+,"))
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
