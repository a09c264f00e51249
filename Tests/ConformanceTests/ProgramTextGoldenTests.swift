import Conformance
import Foundation
import Testing

/// The text form does not move (issue 29, one text per operation): printed programs of the past
/// replay, so every operation's `description` must print what it printed before its text was
/// stated once (`StepFormat`), and every text must read back as its program.
struct ProgramTextGoldenTests {
    /// A generator setting: work outside the controlled thread or not, one driver or up to four.
    struct Setting: Sendable, CustomStringConvertible {
        let usesOutsideWork: Bool
        let maxDrivers: Int
        /// FNV-1a over the texts of seeds 0..<600, each followed by a blank line, recorded on
        /// main at 10211b4, before any operation's text was stated once; recorded again when
        /// `serialHandOff` came, from a stream of its own: its lines (in 254, 254, 250 and 250
        /// of the 600 programs) removed, the texts hashed as 10211b4's, byte for byte; recorded
        /// again when foreign tasks came (`ForeignStream`, a stream of its own): the texts with
        /// their `foreign ` marks removed (in 307, 340, 314 and 329 of the 600 programs) hash as
        /// before, byte for byte, which `unmarked` keeps checking.
        let golden: UInt64
        /// The same texts' hash with every `foreign ` mark removed: the golden before foreign
        /// tasks, so that the marks are all they changed.
        let unmarked: UInt64

        var description: String { "outside=\(usesOutsideWork) maxDrivers=\(maxDrivers)" }
    }

    static let settings = [
        Setting(usesOutsideWork: true, maxDrivers: 4, golden: 9_906_610_936_572_362_948, unmarked: 11_986_262_280_440_863_188),
        Setting(usesOutsideWork: false, maxDrivers: 4, golden: 7_240_503_428_874_809_339, unmarked: 12_596_846_505_957_406_131),
        Setting(usesOutsideWork: true, maxDrivers: 1, golden: 15_191_549_755_243_701_065, unmarked: 11_101_506_754_490_568_925),
        Setting(usesOutsideWork: false, maxDrivers: 1, golden: 12_623_324_987_050_788_029, unmarked: 7_791_668_290_973_880_313)
    ]

    /// 600 seeds in each of four settings: the same texts, byte for byte, the same without their
    /// foreign marks as before them, and each reads back.
    @Test("the texts of 600 seeds in four generator settings are those of main, and read back", arguments: settings)
    func textsAreGolden(setting: Setting) throws {
        var generator = ProgramGenerator(maxDrivers: setting.maxDrivers)
        generator.usesOutsideWork = setting.usesOutsideWork
        var all = ""
        var unmarked = ""
        for seed in UInt64(0)..<600 {
            let program = generator.program(seed: seed)
            let text = program.description
            all += text + "\n\n"
            unmarked += text.replacingOccurrences(of: "foreign ", with: "") + "\n\n"
            let read = try Program(parsing: text)
            #expect(read == program, "seed \(seed) (\(setting)):\n\(text)\nread back as\n\(read)")
            if read != program { return }
        }
        #expect(fnv1a(all) == setting.golden, "the texts of \(setting) changed: \(fnv1a(all)), golden \(setting.golden)")
        #expect(
            fnv1a(unmarked) == setting.unmarked,
            "the texts of \(setting) without their foreign marks changed: \(fnv1a(unmarked)), golden \(setting.unmarked)")
    }
}
