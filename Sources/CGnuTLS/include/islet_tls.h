#ifndef ISLET_TLS_H
#define ISLET_TLS_H
// A check of the web page's certificate and key before the daemon starts (docs/WEB.md): GnuTLS,
// the library libmicrohttpd serves HTTPS with, loaded with dlopen only when [web] has cert_file
// (a desk without it maps none of it). The same library and the same call libmicrohttpd makes,
// so a pair that passes here is one the page can serve with.

#include <stddef.h>

enum islet_tls_verdict {
    ISLET_TLS_OK = 0,
    /// libgnutls.so.30 could not be loaded (detail: the loader's words).
    ISLET_TLS_NO_LIBRARY = 1,
    /// The certificate file holds no certificate GnuTLS can read.
    ISLET_TLS_NOT_A_CERTIFICATE = 2,
    /// The key is encrypted: nothing can ask for its passphrase.
    ISLET_TLS_KEY_ENCRYPTED = 3,
    /// The key file holds no private key GnuTLS can read.
    ISLET_TLS_NOT_A_KEY = 4,
    /// Both read, but the key is not the certificate's.
    ISLET_TLS_MISMATCH = 5,
    /// Anything else GnuTLS refused (detail: its words).
    ISLET_TLS_OTHER = 6,
};

/// Checks a PEM certificate (chain) and its PEM private key; `detail` gets GnuTLS's own words.
int islet_tls_check_pair(const char *cert, size_t cert_size, const char *key, size_t key_size,
                         char *detail, size_t detail_size);

#endif
