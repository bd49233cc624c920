struct JournalFileError: Error, CustomStringConvertible {
    var path: String
    var description: String { "cannot write the journal to \(path)" }
}
