/// A backend's configuration was invalid: nothing was created. Backends never silently change a
/// value they were given.
///
/// It lives in TaskAPI, not in BackendKit, so that a user of one backend catches it by type with
/// the two imports that backend needs (`import TaskAPI`, `import BackendThreads`).
public struct BackendConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The backend's name ("gcd", "threads", ...).
    public let backend: String
    /// The parameter that was out of range.
    public let parameter: String
    /// The value given.
    public let value: Int
    /// What the parameter must be.
    public let requirement: String

    public init(backend: String, parameter: String, value: Int, requirement: String) {
        self.backend = backend
        self.parameter = parameter
        self.value = value
        self.requirement = requirement
    }

    public var description: String {
        "BackendConfigurationError: \(backend) \(parameter) must be \(requirement), got \(value)"
    }
}
