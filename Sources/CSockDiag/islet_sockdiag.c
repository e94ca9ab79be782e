// See include/islet_sockdiag.h.
#include "islet_sockdiag.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

// Where the kernel refuses NETLINK_SOCK_DIAG (qemu-user passes only a few netlink protocols; a
// kernel without CONFIG_INET_DIAG has none): the same row of the socket table as text, from
// /proc/net/tcp or tcp6, read line by line. Milliseconds with thousands of sockets, so only
// then. The kernel prints each address as the raw 32-bit words in hex and the port in hex.
static int proc_net_tcp_uid(int family, const uint8_t *src, uint16_t sport, const uint8_t *dst, uint16_t dport,
                            uint32_t *uid) {
    char want_local[48], want_remote[48];
    if (family == AF_INET) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, dst, 4);
        snprintf(want_local, sizeof want_local, "%08X:%04X", a, ntohs(sport));
        snprintf(want_remote, sizeof want_remote, "%08X:%04X", b, ntohs(dport));
    } else {
        uint32_t a[4], b[4];
        memcpy(a, src, 16);
        memcpy(b, dst, 16);
        snprintf(want_local, sizeof want_local, "%08X%08X%08X%08X:%04X", a[0], a[1], a[2], a[3], ntohs(sport));
        snprintf(want_remote, sizeof want_remote, "%08X%08X%08X%08X:%04X", b[0], b[1], b[2], b[3], ntohs(dport));
    }
    FILE *f = fopen(family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", "re");
    if (!f) return -errno;
    char line[512];
    int found = -ENOENT;
    // A bound on the walk: a machine with more sockets than this is not one a page is served from.
    for (long n = 0; n < 1000000 && fgets(line, sizeof line, f); n++) {
        char local[64], remote[64];
        unsigned long user;
        // sl local rem st tx:rx tr:when retrnsmt uid
        if (sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %lu", local, remote, &user) != 3) continue;
        if (strcmp(local, want_local) == 0 && strcmp(remote, want_remote) == 0) {
            *uid = (uint32_t)user;
            found = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

struct ask {
    struct nlmsghdr header;
    struct inet_diag_req_v2 request;
};

// The exact row to look up: the client's socket, whose own end ("src") is our peer and whose
// peer ("dst") is our own end.
static int build_ask(int fd, struct ask *out) {
    struct sockaddr_storage local, peer;
    socklen_t local_size = sizeof local, peer_size = sizeof peer;
    if (getsockname(fd, (struct sockaddr *)&local, &local_size) != 0) return -errno;
    if (getpeername(fd, (struct sockaddr *)&peer, &peer_size) != 0) return -errno;

    struct ask ask;
    memset(&ask, 0, sizeof ask);
    ask.header.nlmsg_len = sizeof ask;
    ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    ask.header.nlmsg_flags = NLM_F_REQUEST;   // no NLM_F_DUMP: one exact lookup
    ask.request.sdiag_protocol = IPPROTO_TCP;
    ask.request.idiag_states = ~0u;
    ask.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    ask.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    // The client's socket: its own end ("src") is our peer, its peer ("dst") our own end.
    if (peer.ss_family == AF_INET && local.ss_family == AF_INET) {
        const struct sockaddr_in *p = (const void *)&peer, *l = (const void *)&local;
        ask.request.sdiag_family = AF_INET;
        ask.request.id.idiag_sport = p->sin_port;
        ask.request.id.idiag_dport = l->sin_port;
        memcpy(ask.request.id.idiag_src, &p->sin_addr, 4);
        memcpy(ask.request.id.idiag_dst, &l->sin_addr, 4);
    } else if (peer.ss_family == AF_INET6 && local.ss_family == AF_INET6) {
        const struct sockaddr_in6 *p = (const void *)&peer, *l = (const void *)&local;
        ask.request.id.idiag_sport = p->sin6_port;
        ask.request.id.idiag_dport = l->sin6_port;
        if (IN6_IS_ADDR_V4MAPPED(&p->sin6_addr) && IN6_IS_ADDR_V4MAPPED(&l->sin6_addr)) {
            // An IPv4 client of a dual-stack socket: its own socket is IPv4.
            ask.request.sdiag_family = AF_INET;
            memcpy(ask.request.id.idiag_src, &p->sin6_addr.s6_addr[12], 4);
            memcpy(ask.request.id.idiag_dst, &l->sin6_addr.s6_addr[12], 4);
        } else {
            ask.request.sdiag_family = AF_INET6;
            memcpy(ask.request.id.idiag_src, &p->sin6_addr, 16);
            memcpy(ask.request.id.idiag_dst, &l->sin6_addr, 16);
        }
    } else {
        return -EAFNOSUPPORT;
    }
    *out = ask;
    return 0;
}

int islet_tcp_peer_uid_from_proc(int fd, uint32_t *uid) {
    struct ask ask;
    int rc = build_ask(fd, &ask);
    if (rc != 0) return rc;
    return proc_net_tcp_uid(ask.request.sdiag_family, (const uint8_t *)ask.request.id.idiag_src, ask.request.id.idiag_sport,
                            (const uint8_t *)ask.request.id.idiag_dst, ask.request.id.idiag_dport, uid);
}

int islet_tcp_peer_uid(int fd, uint32_t *uid) {
    struct ask ask;
    int rc = build_ask(fd, &ask);
    if (rc != 0) return rc;
    int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (s < 0) {
        int e = errno;
        if (e == EPROTONOSUPPORT || e == EAFNOSUPPORT || e == EINVAL) return islet_tcp_peer_uid_from_proc(fd, uid);
        return -e;
    }
    // The kernel answers within the send; the bound only guards the loop against a surprise.
    struct timeval bound = {0, 100000};
    (void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(s, &ask, sizeof ask, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        int e = errno;
        close(s);
        return -e;
    }
    union {
        struct nlmsghdr header;
        char bytes[8192];
    } answer;
    ssize_t n;
    do n = recv(s, &answer, sizeof answer, 0); while (n < 0 && errno == EINTR);
    int e = errno;
    close(s);
    if (n < 0) return -e;
    const struct nlmsghdr *h = &answer.header;
    if (!NLMSG_OK(h, (size_t)n)) return -EPROTO;
    if (h->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *err = NLMSG_DATA(h);
        return err->error < 0 ? err->error : -ENOENT;
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg))) return -EPROTO;
    const struct inet_diag_msg *m = NLMSG_DATA(h);
    *uid = m->idiag_uid;
    return 0;
}
