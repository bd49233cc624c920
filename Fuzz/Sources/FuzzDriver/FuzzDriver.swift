import CLibFuzzer
import Foundation

/// What each target's `@main` calls: runs libFuzzer's driver with the command line on `test` (the target's
/// LLVMFuzzerTestOneInput) and exits with its status. SwiftPM links the executable's Swift entry point as
/// `main`, so libFuzzer's own `main` cannot be used.
public func runLibFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}
