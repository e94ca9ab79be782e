import IsletFrame
import IsletIcons

/// The icons' contact sheets (`make gallery`): every icon at every drawn size, and each panel
/// size with an icon where the compact presentation puts it, so the art is reviewed as drawn.
extension Gallery {
    /// One row per icon: its wire name, then the 12, 16 and 32 px drawings, each in a dotted box.
    public static func iconSheet(renderer: Renderer) -> Bitmap {
        let labelW = 86, rowH = 40, header = 30
        let columns = IconSize.allCases
        let w = labelW + columns.reduce(0) { $0 + $1.pixels + 14 } + 8
        var sheet = Bitmap(width: w, height: header + rowH * Icon.allCases.count + 4)
        renderer.drawLabel("Islet icons: 12, 16, 32 px, each drawn", x: 4, y: 2, into: &sheet)
        for (r, icon) in Icon.allCases.enumerated() {
            let y0 = header + r * rowH
            renderer.drawLabel(icon.rawValue, x: 4, y: y0 + 10, into: &sheet)
            var x = labelW
            for size in columns {
                let y = y0 + (rowH - size.pixels) / 2
                paste(icon.image.bitmap(size), into: &sheet, x: x, y: y)
                outline(&sheet, x: x - 2, y: y - 2, w: size.pixels + 4, h: size.pixels + 4)
                x += size.pixels + 14
            }
        }
        return sheet
    }

    /// Each panel size, with the icons laid out as the compact presentation lays out its own:
    /// the drawn size it picks for that panel, at its margin, beside room for the time.
    public static func iconPanels(renderer: Renderer) -> Bitmap {
        let gap = 8, labelH = 16, width = 800
        let sizes = PanelSize.all
        // Rows of panels per size, as many across as fit the sheet's width.
        func across(_ s: PanelSize) -> Int { max(1, (width - gap) / (s.width + gap)) }
        func rows(_ s: PanelSize) -> Int { (Icon.allCases.count + across(s) - 1) / across(s) }
        let height = 24 + sizes.reduce(0) { $0 + labelH + rows($1) * ($1.height + gap) }
        var sheet = Bitmap(width: width, height: height)
        renderer.drawLabel("Icons per panel, compact layout (the icon; right of it the time's room)", x: 4, y: 2, into: &sheet)
        var y = 24
        for size in sizes {
            renderer.drawLabel("\(size)", x: 4, y: y, into: &sheet)
            y += labelH
            let s = RenderState.iconSize(w: size.width, h: size.height, largeFrom: (48, 96))
            let margin = size.width >= 96 ? 2 : 1
            for (i, icon) in Icon.allCases.enumerated() {
                let x0 = gap + (i % across(size)) * (size.width + gap), y0 = y + (i / across(size)) * (size.height + gap)
                var panel = Bitmap(width: size.width, height: size.height)
                paste(icon.image.bitmap(s), into: &panel, x: margin, y: (size.height - s.pixels) / 2)
                paste(panel, into: &sheet, x: x0, y: y0)
                outline(&sheet, x: x0 - 2, y: y0 - 2, w: size.width + 4, h: size.height + 4)
            }
            y += rows(size) * (size.height + gap)
        }
        return sheet
    }
}
