/// `islet-bench export`: the frames of the 10-minute countdown for bench/luma_compare.py, and
/// our own frame-to-bus figures on the same frames.
struct CompareExport {
    var quick = false

    func run(frames: String, json: String) -> Int32 {
        let why = "needs IsletRender's Renderer and IsletDisplay's PanelDriver (issues 3, 4)"
        let text = "{\n  \"available\": false,\n  \"missing\": \(Report.quote(why))\n}\n"
        if let err = Report.write(text, to: json) {
            print("islet-bench: \(err)")
            return 73
        }
        print("islet-bench export: \(why)")
        return 0
    }
}
