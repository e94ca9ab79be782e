import IsletRender
import IsletSystem

/// `isletctl render`: one frame of a single activity, written as PBM or PNG.
extension RenderCommand {
    static let usage = """
        usage: isletctl render --presentation compact|minimal|expanded|lockscreen --size WxH
                               --state running|paused|cycle-end|complete|idle
                               [--remaining SECONDS] [--duration SECONDS] [--cycle C --cycles N|0]
                               [--language CODE] [--title TEXT] [--stale]
                               [--stopwatch --elapsed SECONDS] [--icon NAME] [--scale N] -o FILE
               isletctl render --until [--remaining SECONDS] [--progress 0-100] [--text TEXT]
                               [--title TEXT] [--icon NAME] [--state running|complete] ... -o FILE
               isletctl render --test-pattern --size WxH -o FILE   (what isletctl test-pattern shows)
          FILE ends in .pbm (plain P1, 1 = lit) or .png; -o - writes PBM to standard output.
          Defaults: compact, 128x32, running, --duration 300, --remaining = duration,
          --cycle 1 --cycles 1 (0: open-ended), --language en, --scale 1 (PNG only).
        """

    /// Runs the command; returns the exit status (0, 64 for bad arguments, 69 for missing
    /// fonts, 73 when the file cannot be written).
    public static func run(arguments: [String]) -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            StandardStream.output.write(usage + "\n")
            return 0
        }
        let request: Request
        do {
            request = try parse(arguments)
        } catch {
            StandardStream.error.write("isletctl render: \(error.message)\n\(usage)\n")
            return 64
        }
        let renderer: Renderer
        do {
            renderer = try Renderer()
        } catch {
            StandardStream.error.write("isletctl render: \(error)\n")
            return 69
        }
        let frame = render(request, with: renderer)
        do {
            try ImageFile.write(frame, to: request.output, scale: request.scale)
        } catch {
            StandardStream.error.write("isletctl render: \(error)\n")
            return 73
        }
        return 0
    }
}
