// Placeholder: see the open issue for this module.
public enum BackendActorsPlaceholder {}
