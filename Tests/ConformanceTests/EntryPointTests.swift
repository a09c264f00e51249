import Conformance
import Foundation
import Testing

/// `EntryPoint` is the list of TaskAPI's public entry points that the generator must call and
/// the coverage table counts. This test derives the same list from TaskAPI's sources, so that an
/// entry point added to (or removed from) TaskAPI without a matching `EntryPoint` fails here.
struct EntryPointTests {
    @Test func everyPublicEntryPointOfTaskAPIIsListed() throws {
        let derived = try TaskAPISurface.entryPoints()
        let listed = Set(EntryPoint.allCases.map(\.rawValue))
        let missing = derived.subtracting(listed).sorted()
        let stale = listed.subtracting(derived).sorted()
        #expect(missing.isEmpty, "TaskAPI entry points not in EntryPoint (add a case, and an operation that calls it): \(missing)")
        #expect(stale.isEmpty, "EntryPoint cases TaskAPI no longer has: \(stale)")
        #expect(derived.count > 100, "the parser found only \(derived.count) entry points")
    }

    /// Every entry point but the ones that say why is called by some generated program, in the
    /// programs of both modes (stress programs may use timers and Swift tasks; controlled ones
    /// may not).
    @Test func generatedProgramsCallEveryEntryPoint() {
        var called: Set<EntryPoint> = []
        for outsideWork in [true, false] {
            var generator = ProgramGenerator()
            generator.usesOutsideWork = outsideWork
            for seed in UInt64(0)..<400 {
                called.formUnion(Conformance.entryPoints(of: generator.program(seed: seed)))
            }
        }
        let uncalled = EntryPoint.allCases.filter { !called.contains($0) && $0.notGenerated == nil }
        #expect(uncalled.isEmpty, "never called by 800 generated programs: \(uncalled.map(\.rawValue))")
        let explained = EntryPoint.allCases.filter { $0.notGenerated != nil }
        #expect(explained.allSatisfy { !called.contains($0) }, "an entry point said not generated is called")
    }
}

/// The public surface of TaskAPI's contract types, read from its sources: each protocol
/// requirement and each public member of the types, and of their extensions, as
/// `Type.name(label:...)`, with overloads of one name told apart by the features they differ in.
enum TaskAPISurface {
    static let types: Set<String> = [
        "AsyncTask", "CompletionSource", "TaskBackend", "CancellationSource", "CancellationToken", "AsyncTaskExecutor",
        "TaskFactory", "PreparedTask", "WorkGroup", "MainExecutor"
    ]

    /// The features that tell overloads apart, in the order tags list them.
    static let features: [(tag: String, test: @Sendable (_ declaration: String, _ parameters: String) -> Bool)] = [
        ("executor?", { declaration, _ in declaration.contains("(any AsyncTaskExecutor)?") }),
        ("task", { _, parameters in parameters.range(of: #"->\s*any AsyncTask"#, options: .regularExpression) != nil }),
        ("no token", { _, parameters in parameters.range(of: #"\(\)\s*(async )?throws"#, options: .regularExpression) != nil }),
        ("async", { _, parameters in parameters.contains("async") }),
        ("pack", { declaration, _ in declaration.contains("repeat ") }),
        ("unavailable", { declaration, _ in declaration.contains("@available(*, unavailable") }),
        ("Void", { declaration, _ in declaration.contains("Success == Void") }),
        ("main", { declaration, _ in declaration.contains("MainExecutor") }),
        ("actor", { declaration, _ in declaration.contains("PinnedActor") })
    ]

    struct Declaration {
        let key: String
        let tags: [String]
        /// The signature without attributes, default values and spaces: a requirement's default
        /// implementation has the requirement's.
        let signature: String
    }

    static func entryPoints() throws -> Set<String> {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/TaskAPI")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
        var declarations: [Declaration] = []
        for file in files {
            declarations += try self.declarations(in: String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8))
        }
        var groups: [String: [Declaration]] = [:]
        for declaration in declarations where !(groups[declaration.key] ?? []).contains(where: { $0.signature == declaration.signature }) {
            groups[declaration.key, default: []].append(declaration)
        }
        var result: Set<String> = []
        for (key, group) in groups {
            let shared = group.dropFirst().reduce(Set(group[0].tags)) { $0.intersection($1.tags) }
            for declaration in group {
                let tags = group.count == 1 ? [] : declaration.tags.filter { !shared.contains($0) }
                let name = tags.isEmpty ? key : "\(key) [\(tags.joined(separator: ", "))]"
                #expect(!result.contains(name), "two overloads of \(key) differ in no feature the parser knows: add one")
                result.insert(name)
            }
        }
        return result
    }

    /// The declarations of one file that belong to the contract types.
    static func declarations(in source: String) -> [Declaration] {
        let lines = source.components(separatedBy: "\n")
        var result: [Declaration] = []
        var scope: String?
        var isProtocol = false
        var whereClause = ""
        var attributes = ""
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if let match = line.firstMatch(of: #/^(?:public )?(?:final )?(protocol|extension|struct|class|enum) (\w+)(.*)/#) {
                scope = types.contains(String(match.2)) ? String(match.2) : nil
                isProtocol = match.1 == "protocol"
                whereClause = String(match.3)
                attributes = ""
                index += 1
                continue
            }
            guard let type = scope, line.hasPrefix("    "), !line.hasPrefix("     ") else { index += 1; continue }
            var text = line.trimmingCharacters(in: .whitespaces)
            // Attributes: on lines of their own, or before the declaration on its line.
            if text.hasPrefix("@") {
                // An attribute broken over lines (swift-format breaks a long `@available`): read on
                // to its closing parenthesis.
                while text.filter({ $0 == "(" }).count > text.filter({ $0 == ")" }).count, index + 1 < lines.count {
                    index += 1
                    text += " " + lines[index].trimmingCharacters(in: .whitespaces)
                }
                text = text.replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
                guard let declaration = text.firstMatch(of: #/\b(public |static |func |var |let |init\()/#) else {
                    attributes += text + " "
                    index += 1
                    continue
                }
                attributes += text[..<declaration.range.lowerBound] + " "
                text = String(text[declaration.range.lowerBound...])
            }
            defer { attributes = "" }
            let isPublic = text.hasPrefix("public ")
            let body = isPublic ? String(text.dropFirst("public ".count)) : text
            guard let kind = body.firstMatch(of: #/^(?:static )?(func|var|let|init|subscript)\b/#)?.1,
                isPublic || (isProtocol && (kind == "func" || kind == "var"))
            else { index += 1; continue }
            var declaration = body
            while balance(of: declaration) > 0, index + 1 < lines.count {
                index += 1
                declaration += " " + lines[index].trimmingCharacters(in: .whitespaces)
            }
            let signature = cutAtBody(declaration)
            let parameters = parameterList(of: signature)
            let key: String
            if kind == "var" || kind == "let" {
                key = "\(type).\(signature.firstMatch(of: #/(?:var|let) (\w+)/#)?.1 ?? "?")"
            } else {
                let name = kind == "init" ? "init" : String(signature.firstMatch(of: #/func `?(\w+)`?/#)?.1 ?? "?")
                let labels = splitTopLevel(parameters).compactMap { parameter -> String? in
                    let head = parameter.split(separator: ":", maxSplits: 1).first?.split(separator: " ") ?? []
                    return head.first.map { "\($0):" }
                }
                key = "\(type).\(name)(\(labels.joined()))"
            }
            let context = attributes + " " + signature + " " + whereClause
            let tags = features.filter { $0.test(context, parameters) }.map(\.tag)
            let normalized = signature.replacing(#/=\s*[^,)]+/#, with: "").filter { !$0.isWhitespace }
            result.append(Declaration(key: key, tags: tags, signature: normalized.replacingOccurrences(of: "public", with: "")))
            index += 1
        }
        return result
    }

    /// Open parentheses minus closed ones.
    static func balance(of text: String) -> Int {
        text.reduce(0) { $0 + ($1 == "(" ? 1 : $1 == ")" ? -1 : 0) }
    }

    /// The declaration up to its body's `{` (outside parentheses and brackets).
    static func cutAtBody(_ text: String) -> String {
        var depth = 0
        for (offset, character) in text.enumerated() {
            if character == "(" || character == "[" { depth += 1 }
            if character == ")" || character == "]" { depth -= 1 }
            if character == "{", depth == 0 { return String(text.prefix(offset)).trimmingCharacters(in: .whitespaces) }
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The text inside the first parentheses.
    static func parameterList(of signature: String) -> String {
        guard let open = signature.firstIndex(of: "(") else { return "" }
        var depth = 0
        var index = open
        while index < signature.endIndex {
            if signature[index] == "(" { depth += 1 }
            if signature[index] == ")" {
                depth -= 1
                if depth == 0 { return String(signature[signature.index(after: open)..<index]) }
            }
            index = signature.index(after: index)
        }
        return String(signature[signature.index(after: open)...])
    }

    /// The parameters, split at the commas outside brackets, generics and closures.
    static func splitTopLevel(_ list: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var previous: Character = " "
        for character in list {
            if "(<[{".contains(character) { depth += 1 }
            if ")]}".contains(character) || (character == ">" && previous != "-") { depth -= 1 }
            if character == ",", depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current) }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
