#!/usr/bin/env python3
"""netup.py ADDRESS/BITS: gives the guest's network interface (its one NIC besides lo, qemu's
user-mode network) the IPv4 address ADDRESS/BITS and brings it up; prints the interface's name.
The image has no iproute2: these are the ioctls ip(8) and ifconfig(8) make (SIOCSIFADDR,
SIOCSIFNETMASK, SIOCSIFFLAGS), and the kernel adds the route of the subnet itself."""
import fcntl
import os
import socket
import struct
import sys
import time

SIOCGIFFLAGS, SIOCSIFFLAGS, SIOCSIFADDR, SIOCSIFNETMASK = 0x8913, 0x8914, 0x8916, 0x891C
IFF_UP = 0x1
IFREQ_SIZE = 40  # struct ifreq on 64-bit Linux (x86-64 and aarch64 alike): a 16-byte name, a 24-byte union

address, bits = sys.argv[1].split("/")
deadline = time.monotonic() + 20
while True:
    names = sorted(n for n in os.listdir("/sys/class/net") if n != "lo")
    if names or time.monotonic() > deadline:
        break
    time.sleep(0.2)
if len(names) != 1:
    sys.exit("netup: expected one network interface besides lo, found %s" % (names or "none"))
name = names[0].encode()


def ifreq(payload):
    return struct.pack("16s", name) + payload.ljust(IFREQ_SIZE - 16, b"\0")


def sockaddr_in(dotted):
    return struct.pack("=HH4s", socket.AF_INET, 0, socket.inet_aton(dotted))


mask = socket.inet_ntoa(struct.pack("!I", (0xFFFFFFFF << (32 - int(bits))) & 0xFFFFFFFF))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fcntl.ioctl(s, SIOCSIFADDR, ifreq(sockaddr_in(address)))
fcntl.ioctl(s, SIOCSIFNETMASK, ifreq(sockaddr_in(mask)))
flags = struct.unpack_from("=H", fcntl.ioctl(s, SIOCGIFFLAGS, ifreq(b"")), 16)[0]
fcntl.ioctl(s, SIOCSIFFLAGS, ifreq(struct.pack("=H", flags | IFF_UP)))
print(name.decode())
