import IsletCore
import IsletIcons
import IsletProtocol
import IsletRender

/// A start's icon, checked against the renderer's set before the start is taken: an unknown
/// name is refused with the names there are, a custom icon that does not decode with what is
/// wrong with it (docs/RENDERING.md, "Icons"). The core checked only the form.
enum IconCheck {
    static func check(_ icon: ActivityIcon?) throws(ProtocolError) {
        switch icon {
        case nil: return
        case .named(let name)?:
            do { _ = try Icon(name: name) } catch { throw ProtocolError(Rejection.Code.invalidAttributes.rawValue, error.description) }
        case .custom(let base64)?:
            do { _ = try CustomIcon.decode(base64: base64) } catch { throw ProtocolError(Rejection.Code.invalidAttributes.rawValue, error.description) }
        }
    }
}
