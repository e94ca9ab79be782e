import Testing
import IsletLinux

@Test func shimReportsTheLibgpiodAPIItWasBuiltAgainst() {
    // Debian 12 ships libgpiod 1.6, Debian 13 ships 2.x; either is a valid build.
    #expect([1, 2].contains(gpioBackendMajorVersion()))
}
