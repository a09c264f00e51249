import Testing
import Conformance

// Placeholder until the conformance issue lands: the target must have a source file.
