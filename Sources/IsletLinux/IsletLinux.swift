import CGPIOD

/// Which libgpiod API the GPIO shim was compiled against (1 for 1.6, 2 for 2.x).
public func gpioBackendMajorVersion() -> Int { Int(islet_gpio_backend_major()) }
