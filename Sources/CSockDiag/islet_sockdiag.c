// See include/islet_sockdiag.h.
#include "islet_sockdiag.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int islet_tcp_peer_uid(int fd, uint32_t *uid) {
    struct sockaddr_storage local, peer;
    socklen_t local_size = sizeof local, peer_size = sizeof peer;
    if (getsockname(fd, (struct sockaddr *)&local, &local_size) != 0) return -errno;
    if (getpeername(fd, (struct sockaddr *)&peer, &peer_size) != 0) return -errno;

    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } ask;
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

    int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (s < 0) return -errno;
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
