import IsletSystem

ThisProcess.exit(CtlMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
