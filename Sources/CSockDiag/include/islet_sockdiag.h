#ifndef ISLET_SOCKDIAG_H
#define ISLET_SOCKDIAG_H
// Who owns the far end of a loopback TCP connection: the kernel's socket table answers one
// exact lookup through NETLINK_SOCK_DIAG (what `ss -e` reads), in microseconds, where a read
// of /proc/net/tcp walks every socket of the machine (milliseconds with a few thousand).

#include <stdint.h>

/// The user owning the socket at the other end of connected TCP socket `fd`: 0 and *uid, or
/// -errno (-ENOENT: the kernel has no such socket here, so the peer is not on this machine).
int islet_tcp_peer_uid(int fd, uint32_t *uid);

#endif
