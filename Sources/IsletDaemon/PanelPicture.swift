import IsletParts
import IsletFrame
import IsletProtocol
import IsletRender

/// The panel's picture for the parts that show it elsewhere (the page, Home Assistant's image):
/// read back from what was sent, never drawn again.
extension Panel: PanelPicture {
    var image: PanelImage? { output.shownImage }

    var version: Int { pictureVersion }

    func png(scale: Int) -> [UInt8]? {
        guard let image, let bytes = image.bytes,
              var bitmap = Bitmap(width: image.width, height: image.height, bytes: bytes) else { return nil }
        // A dark panel shows nothing, whatever its RAM holds.
        if !image.on { bitmap = Bitmap(width: image.width, height: image.height) }
        return ImageFile.png(bitmap, scale: scale)
    }
}
