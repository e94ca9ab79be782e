// swift-tools-version:6.0
// Islet: a Live-Activity-style meditation timer on an I²C OLED pill.
// No outside Swift packages: the toolchain plus Debian's C libraries.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Islet",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "isletd", targets: ["isletd"]),
        .executable(name: "isletctl", targets: ["isletctl"]),
        .executable(name: "islet-bench", targets: ["islet-bench"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2",
                       providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi",
                       providers: [.apt(["libfribidi-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // zlib (libpng's own), for the tests that read the page's gzip files back (IsletWebTests).
        // No pkgConfig: in a cross build it answers with the target's libdir (a host tool that
        // linked it once failed so). The header is /usr/include/zlib.h and libz is on every
        // default search path.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // libdeflate, the page's gzip files and the icons' image data made smaller than zlib makes
        // them, at build time by islet-page-gen (the same cross-build reason: no pkgConfig).
        .systemLibrary(name: "CDeflate", providers: [.apt(["libdeflate-dev"])]),
        // libi2c ships no .pc file: the modulemap links it by name.
        .systemLibrary(name: "CI2C", providers: [.apt(["libi2c-dev"])]),
        // Header only: epoll, timerfd, signalfd and eventfd, which Glibc's Swift module does not import.
        .systemLibrary(name: "CLinux"),
        // libmosquitto, driven by isletd's loop (no thread of its own but the connector's), loaded
        // with dlopen only when [mqtt] is used: stubs under the library's own names (its header
        // from libmosquitto-dev, the library from libmosquitto1, a Depends the .deb names by hand).
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        // libmicrohttpd for the web page, loaded with dlopen only when [web] is set; its header
        // comes from libmicrohttpd-dev, the library from libmicrohttpd12 (docs/WEB.md).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("dl")]),
        // 1-bit PNGs of the panel through libpng's full write API (the simplified one writes 8-bit only).
        .target(name: "CPNGEncode", dependencies: ["CPNG"]),
        // GnuTLS (libmicrohttpd's TLS library), loaded with dlopen only to check [web]'s
        // certificate and key; its header comes from libgnutls28-dev (libmicrohttpd-dev's).
        .target(name: "CGnuTLS", linkerSettings: [.linkedLibrary("dl")]),
        // One exact lookup in the kernel's socket table (NETLINK_SOCK_DIAG): who owns a loopback client's socket.
        .target(name: "CSockDiag"),
        // A thin C shim over libgpiod whose interface does not leak the 1.6 API.
        .target(name: "CGPIOD", linkerSettings: [.linkedLibrary("gpiod")]),

        .target(name: "IsletCore", swiftSettings: strict),
        // Several displays, one session: revisions (a hybrid logical clock), records and the
        // merge that makes every device of a group converge. Pure, like IsletCore.
        .target(name: "IsletSync", dependencies: ["IsletCore"], swiftSettings: strict),
        // The leaf: 1-bit page-packed frames, panel sizes, and the one hex codec and string escaper;
        // no C, no other Islet module.
        .target(name: "IsletFrame", swiftSettings: strict),
        // The pill's icons: their art (text rows, `#` lit, one drawing per size), their masks and
        // the one way they are drawn into a frame. No C and no generated code, so the page's build
        // tool draws the home-screen icons with it as IsletRender draws the pill's.
        .target(name: "IsletIcons", dependencies: ["IsletFrame"], swiftSettings: strict),
        .target(name: "IsletRender",
                dependencies: ["IsletCore", "IsletFrame", "IsletIcons", "IsletSystem", "IsletErrno", "CFreeType", "CFriBidi", "CPNG", "CPNGEncode"],
                exclude: ["Localization"],
                swiftSettings: strict,
                plugins: ["IsletStringsPlugin"]),
        // Build-time only: compiles IsletRender's localized string tables into Swift. Its escaper
        // is IsletFrame's `Quoted`, its files and stderr IsletSystem's, so the host tool stays
        // small and imports no C library itself.
        .executableTarget(name: "islet-strings-gen", dependencies: ["IsletFrame", "IsletSystem"], swiftSettings: strict),
        .plugin(name: "IsletStringsPlugin", capability: .buildTool(),
                dependencies: ["islet-strings-gen"]),
        // Build-time only: IsletWeb's page as served (docs/WEB.md "Delivery"): the Assets files
        // joined as Assets/served.txt says, the home-screen icons drawn by IsletIcons (the pill's
        // own icon, drawn as the renderer draws it; IsletRender itself, whose strings a build-tool
        // plugin generates, cannot be a plugin tool's dependency: SwiftPM runs no build-tool
        // plugins for a tool), names with each content's hash, gzip and PNG data made once here
        // by libdeflate.
        .executableTarget(name: "islet-page-gen", dependencies: ["IsletFrame", "IsletIcons", "IsletSystem", "CDeflate"], swiftSettings: strict),
        .plugin(name: "IsletPagePlugin", capability: .buildTool(), dependencies: ["islet-page-gen"]),
        .target(name: "IsletErrno", swiftSettings: strict),
        .target(name: "IsletDisplay", dependencies: ["IsletFrame", "IsletErrno", "IsletSystem"], swiftSettings: strict),
        // Buttons and chime without hardware: edges, the gesture recognizer, the button map, chime patterns.
        .target(name: "IsletInput", dependencies: ["IsletCore"], swiftSettings: strict),
        // The system-call boundary: one Errno, an owning FileDescriptor, one monotonic clock, epoll,
        // timerfd, signalfd, eventfd, sockets. libgpiod and libi2c sit in IsletLinux on top of it, so
        // isletctl (which needs sockets, not GPIO) links neither.
        .target(name: "IsletSystem", dependencies: ["CLinux", "CSockDiag", "IsletErrno"], swiftSettings: strict),
        // The control protocol, its strict JSON and the client: shared by isletd and isletctl.
        .target(name: "IsletProtocol", dependencies: ["IsletCore", "IsletFrame", "IsletSystem", "IsletErrno"], swiftSettings: strict),
        .target(name: "IsletLinux", dependencies: ["IsletErrno", "IsletSystem", "IsletDisplay", "IsletInput", "CI2C", "CGPIOD"],
                swiftSettings: strict),
        // MQTT: the libmosquitto session and its off-loop connector (the C boundary), and pure
        // parts: the broker URL, topics, Home Assistant's discovery payloads, the request ledger.
        .target(name: "IsletMQTT", dependencies: ["CMosquitto", "IsletSystem", "IsletErrno", "IsletProtocol", "IsletCore"],
                swiftSettings: strict),
        // The daemon's clocks: the loop's (monotonic, boot, wall; a manual one for tests) and the
        // timeline (`HostClock`) that the store stamps its saves with.
        .target(name: "IsletClock", dependencies: ["IsletCore", "IsletSystem"], swiftSettings: strict),
        // The state file: atomic saves, the loader that never trusts it, the writer thread.
        .target(name: "IsletStore", dependencies: ["IsletCore", "IsletProtocol", "IsletSystem", "IsletErrno", "IsletClock"],
                swiftSettings: strict),
        // What every part needs to read its section: the INI reader, file:line errors, the one
        // check of a secret file, a part's settings (`PartSettings`), what it opens of the network.
        .target(name: "IsletSettings", dependencies: ["IsletSystem", "IsletErrno"], swiftSettings: strict),
        // isletd's core configuration ([daemon], [display], [session], [buttons], [chime]), the
        // command line's flags, what a reload changes; each part's section is its own settings type.
        .target(name: "IsletConfig",
                dependencies: ["IsletSettings", "IsletCore", "IsletFrame", "IsletDisplay", "IsletInput", "IsletLinux", "IsletSystem",
                               "IsletProtocol"],
                swiftSettings: strict),
        // What a part of the daemon is (`DaemonPart`), its way in, the turn it sees, the loop,
        // the log and the clocks it is given.
        .target(name: "IsletParts",
                dependencies: ["IsletCore", "IsletProtocol", "IsletSystem", "IsletErrno", "IsletClock", "IsletSettings", "IsletStore"],
                swiftSettings: strict),
        // The network's parts: the MQTT bridge and the sync group, on one link.
        .target(name: "IsletNetwork",
                dependencies: ["IsletParts", "IsletSettings", "IsletStore", "IsletCore", "IsletSync", "IsletMQTT", "IsletProtocol", "IsletSystem",
                               "IsletClock", "IsletConfig"],
                swiftSettings: strict),
        // The web page: libmicrohttpd on the loop, the page's assets, its guard and its API.
        .target(name: "IsletWeb",
                dependencies: ["CMicroHTTPD", "CGnuTLS", "IsletParts", "IsletSettings", "IsletConfig", "IsletProtocol", "IsletSystem", "IsletFrame"],
                exclude: ["Assets"],
                swiftSettings: strict,
                plugins: ["IsletPagePlugin"]),
        .target(name: "IsletDaemon",
                dependencies: ["IsletWeb", "IsletCore", "IsletFrame", "IsletIcons", "IsletRender", "IsletDisplay", "IsletLinux",
                               "IsletInput", "IsletSystem", "IsletErrno", "IsletProtocol", "IsletMQTT", "IsletSync",
                               "IsletClock", "IsletStore", "IsletSettings", "IsletConfig", "IsletParts", "IsletNetwork"],
                swiftSettings: strict),
        .executableTarget(name: "isletd", dependencies: ["IsletDaemon", "IsletSystem"], swiftSettings: strict),
        // isletctl owns its command line and links no GPIO or I²C library (no IsletLinux).
        .executableTarget(name: "isletctl",
                          dependencies: ["IsletCore", "IsletFrame", "IsletRender", "IsletDisplay", "IsletSystem", "IsletProtocol"],
                          swiftSettings: strict),
        // It starts isletd as a process (a release build's), so it links none of the daemon.
        .executableTarget(name: "islet-bench",
                          dependencies: ["IsletCore", "IsletFrame", "IsletRender", "IsletDisplay", "IsletProtocol", "IsletSystem"],
                          swiftSettings: strict),
        // `make fuzz`: libFuzzer targets (built with -sanitize=fuzzer -DFUZZING); plainly built,
        // a replayer of the corpora in Tests/Fuzz.
        .executableTarget(name: "islet-fuzz",
                          dependencies: ["IsletDaemon", "IsletSettings", "IsletConfig", "IsletNetwork", "IsletStore", "IsletClock", "IsletProtocol", "IsletSync", "IsletMQTT", "IsletCore", "IsletWeb",
                                         "IsletRender", "IsletIcons", "IsletFrame", "IsletDisplay", "IsletSystem"],
                          swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]),
        // `make gallery`: writes the contact sheets of docs/gallery.
        .executableTarget(name: "islet-gallery", dependencies: ["IsletFrame", "IsletRender", "IsletDisplay", "IsletSystem"], swiftSettings: strict),

        // Shared by the test targets only: the seeded generator and fuzz settings.
        .target(name: "IsletTestSupport", dependencies: ["CZlib"], path: "Tests/IsletTestSupport", swiftSettings: strict),
        .testTarget(name: "IsletCoreTests", dependencies: ["IsletCore", "IsletTestSupport"],
                    exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "IsletSyncTests", dependencies: ["IsletSync", "IsletCore", "IsletTestSupport"], swiftSettings: strict),
        .testTarget(name: "IsletFrameTests", dependencies: ["IsletFrame"], swiftSettings: strict),
        .testTarget(name: "IsletRenderTests", dependencies: ["IsletRender", "IsletIcons", "IsletFrame", "IsletTestSupport", "CPNG"],
                    exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "IsletDisplayTests", dependencies: ["IsletDisplay", "IsletFrame", "IsletRender", "IsletSystem", "IsletErrno", "IsletTestSupport"], swiftSettings: strict),
        .testTarget(name: "IsletInputTests", dependencies: ["IsletInput", "IsletCore"], swiftSettings: strict),
        .testTarget(name: "IsletSystemTests", dependencies: ["IsletSystem", "IsletErrno"], swiftSettings: strict),
        .testTarget(name: "IsletProtocolTests", dependencies: ["IsletProtocol", "IsletCore"], swiftSettings: strict),
        // isletctl's command-line code, tested through the executable target itself.
        .testTarget(name: "isletctlTests",
                    dependencies: ["isletctl", "IsletCore", "IsletFrame", "IsletRender", "IsletDisplay", "IsletTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "IsletLinuxTests", dependencies: ["IsletErrno", "IsletSystem", "IsletLinux", "IsletDisplay", "IsletFrame", "IsletInput"], swiftSettings: strict),
        .testTarget(name: "IsletMQTTTests", dependencies: ["IsletMQTT", "IsletProtocol", "IsletCore"], swiftSettings: strict),
        .testTarget(name: "IsletConfigTests",
                    dependencies: ["IsletSettings", "IsletConfig", "IsletNetwork", "IsletWeb", "IsletDaemon", "IsletCore", "IsletInput", "IsletLinux", "IsletMQTT", "IsletProtocol", "IsletDisplay", "IsletTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "IsletStoreTests", dependencies: ["IsletStore", "IsletNetwork", "IsletClock", "IsletCore", "IsletSync", "IsletSystem", "IsletTestSupport"],
                    exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "IsletWebTests", dependencies: ["IsletWeb", "IsletSettings", "IsletConfig", "IsletSystem", "IsletTestSupport"], swiftSettings: strict),
        .testTarget(name: "IsletStringsGenTests", dependencies: ["islet-page-gen", "IsletIcons", "IsletFrame", "IsletSystem", "IsletTestSupport", "CZlib"], swiftSettings: strict),
        .testTarget(name: "IsletDaemonTests", dependencies: ["IsletDaemon", "IsletParts", "IsletSync", "IsletMQTT", "IsletFrame", "IsletRender", "IsletProtocol", "IsletInput", "IsletLinux", "IsletClock", "IsletStore", "IsletSettings", "IsletConfig", "IsletNetwork", "IsletWeb", "IsletTestSupport"], swiftSettings: strict),
    ]
)
