import Foundation

/// Why `path` cannot take a file the benchmark writes, or `nil` if it can: checked before
/// measuring, so that a typo does not cost a whole run. Nothing is created.
func outputPathProblem(_ path: String) -> String? {
    guard !path.isEmpty else { return "an output path is empty" }
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
        if isDirectory.boolValue { return "\(path) is a directory, not a file" }
        return manager.isWritableFile(atPath: path) ? nil : "\(path) exists and is not writable"
    }
    let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard manager.fileExists(atPath: parent, isDirectory: &isDirectory) else {
        return "cannot write \(path): directory \(parent) does not exist"
    }
    guard isDirectory.boolValue else { return "cannot write \(path): \(parent) is not a directory" }
    return manager.isWritableFile(atPath: parent) ? nil : "cannot write \(path): directory \(parent) is not writable"
}

/// The first problem with the run's output files, or `nil` when every one can be written.
func outputProblem(_ options: Options) -> String? {
    let paths = [options.output, options.svg].compactMap { $0 }
    if paths.count == 2, paths[0] == paths[1] { return "--output and --svg name the same file \(paths[0])" }
    return paths.lazy.compactMap(outputPathProblem).first
}
