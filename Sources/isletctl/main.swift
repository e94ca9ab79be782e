#if canImport(Glibc)
import Glibc
#endif

exit(CtlMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
