/// The fixture's class was called `AuthMock`, like its module and the CLI's root command; in a file that
/// imports the module, `AuthMock.X` could then mean either. It is `AuthMockFixture` now.
@available(*, deprecated, renamed: "AuthMockFixture")
public typealias AuthMock = AuthMockFixture
