import IsletDaemon
import IsletSystem

// Under an LD_PRELOAD shim such as libfaketime the runtime may see no arguments at all
// (argc 0); the kernel's copy in /proc/self/cmdline is then the source of truth.
let arguments = CommandLine.argc > 0 ? Array(CommandLine.arguments.dropFirst()) : ProcessArguments.fromProc()
ThisProcess.exit(DaemonMain.run(arguments: arguments))
