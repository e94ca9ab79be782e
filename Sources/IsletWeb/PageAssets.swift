/// The web page's assets, served from the binary (docs/WEB.md): one page, `html` at `/`, its
/// style at `/app.css` and its script at `/app.js`. Nothing inline and nothing from elsewhere, so
/// the page runs under `Content-Security-Policy: default-src 'self'` and works offline. They are
/// the files in Assets/, embedded byte for byte at build time (`EmbeddedAssets`, made by
/// IsletStringsPlugin) and checked by real parsers (`make lint-web`).
package enum PageAssets {
    /// The page at `/` (index.html). Its English words are the fallback; the script puts the
    /// chosen language's in every element with a `data-w` key.
    package static let html = EmbeddedAssets.indexHTML

    /// The page's style at `/app.css` (app.css): dark like the glass, one column on a phone, two
    /// on a desktop, mirrored by logical properties under `dir="rtl"` while times, numbers and
    /// the pill stay left to right.
    package static let style = EmbeddedAssets.appCSS

    /// The page's script at `/app.js`, one classic script in four files (the first one's
    /// "use strict" covers all four):
    ///
    /// words.js: the page's words in the panel's seven languages, one key per line, its texts in
    /// the order of `langs`, split at `|`. The panel's own words (Sources/IsletRender/Localization)
    /// are reused where they say the same thing: phases, "Cycle {cycle} of {cycles}", the kinds.
    /// `{…}` placeholders are filled with ASCII digits.
    ///
    /// parts.js: the pure parts, no state and no network, so each reads (and is tested) on its own:
    /// - `match(tag)`: the page's language for a BCP 47 tag ("pt-BR" → "pt", "zh-CN" →
    ///   "zh-Hans"), or null.
    /// - `clock(seconds)`: `m:ss`, `mm:ss` or `h:mm:ss` in ASCII digits, as on the glass
    ///   (IsletCore's `ShownTime.format`).
    /// - `shownAfter(report, ms)`: what an activity report shows `ms` after it arrived. Only a
    ///   running timer moves, rounded as the daemon rounds (a countdown's remaining time up, a
    ///   stopwatch's elapsed time down); anything else, a paused timer above all, shows the
    ///   daemon's `shown` as is: its frozen time, never 0:00 because a clock passed its end.
    /// - `untilChange(report, ms)`: how many ms after that the shown time next changes
    ///   (Infinity when it does not), so the page redraws on the second, as the daemon does.
    /// - `verbs(report)`: the buttons a row offers and those its state refuses (README's
    ///   transition table); `tabTitle(shown, phase)`: "9:13 ▶ Islet"; `quickLengths(stored)`,
    ///   `rememberLength(list, m)`: the quick starts from what localStorage gives back, checked;
    ///   `nightView(status.night)`: the card's values and the canvas's dimming; `alertsOf(change)`:
    ///   a `change` event's well-formed `alerts` (docs/WEB.md "Living with the display").
    /// - `paint(canvas, frame)`: draws a `frame` event (`{width, height, on, pages}`) one canvas
    ///   pixel per panel pixel. `pages` is the SSD1306 page layout in hex: byte `page*width + x`,
    ///   bit b is row `page*8 + b`, the least significant bit on top. Lit is #e8f4ff, dark
    ///   #000000, nothing else; a panel that is off is all dark. The hex stays on the canvas as
    ///   `data-pages`, the panel's state as `data-on`. False when the frame is not one.
    ///
    /// behaviour.js: the session, the live stream (`/api/events`), the pill drawn pixel for pixel,
    /// the activities, the controls (each sends one control-socket request to `/api/request`),
    /// the display's status. Every text from the daemon or a person goes into the page as text
    /// (`textContent`), never as markup. A paused timer shows the daemon's frozen `shown`; only a
    /// running one ticks here, from its remaining or elapsed seconds.
    ///
    /// settings.js: the Settings card (docs/WEB.md "Settings", "Backup"): the `settings` ops,
    /// each value's source and the parser's refusal beside its field, the backup's download and
    /// restore.
    ///
    /// `make lint-web` reads this line for the order.
    package static let script = EmbeddedAssets.wordsJS + EmbeddedAssets.partsJS + EmbeddedAssets.behaviourJS + EmbeddedAssets.settingsJS
}
