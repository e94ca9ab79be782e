#ifndef ISLET_SOCKDIAG_H
#define ISLET_SOCKDIAG_H
// Who owns the far end of a loopback TCP connection: the kernel's socket table answers one
// exact lookup through NETLINK_SOCK_DIAG (what `ss -e` reads), in microseconds, where a read
// of /proc/net/tcp walks every socket of the machine (milliseconds with a few thousand).

#include <stdint.h>

/// The user owning the socket at the other end of connected TCP socket `fd`: 0 and *uid, or
/// -errno (-ENOENT: the kernel has no such socket here, so the peer is not on this machine).
/// Where NETLINK_SOCK_DIAG is refused (qemu-user, a kernel without it), /proc/net/tcp{,6}.
int islet_tcp_peer_uid(int fd, uint32_t *uid);
/// The same from /proc/net/tcp{,6} alone (the fallback, callable for its test).
int islet_tcp_peer_uid_from_proc(int fd, uint32_t *uid);

#endif
