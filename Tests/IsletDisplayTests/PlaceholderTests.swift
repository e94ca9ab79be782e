import Testing
import IsletDisplay

@Test func fillLightsEveryPixelOfAPartialLastPage() {
    // 72×40 panels end mid-page: page 4 holds rows 32...39 only, all eight rows used.
    var b = Bitmap(width: 72, height: 39)
    b.fill()
    #expect(b.litCount == 72 * 39)
}
