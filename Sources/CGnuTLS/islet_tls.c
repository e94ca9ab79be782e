// GnuTLS through dlopen: see include/islet_tls.h for why and what.
#include "islet_tls.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

// The entry points used, resolved once.
static struct {
    void *handle;
    int (*crt_init)(gnutls_x509_crt_t *);
    int (*crt_import)(gnutls_x509_crt_t, const gnutls_datum_t *, gnutls_x509_crt_fmt_t);
    void (*crt_deinit)(gnutls_x509_crt_t);
    int (*key_init)(gnutls_x509_privkey_t *);
    int (*key_import2)(gnutls_x509_privkey_t, const gnutls_datum_t *, gnutls_x509_crt_fmt_t, const char *, unsigned);
    void (*key_deinit)(gnutls_x509_privkey_t);
    int (*cred_alloc)(gnutls_certificate_credentials_t *);
    int (*cred_set_key_mem)(gnutls_certificate_credentials_t, const gnutls_datum_t *, const gnutls_datum_t *,
                            gnutls_x509_crt_fmt_t);
    void (*cred_free)(gnutls_certificate_credentials_t);
    const char *(*strerror)(int);
} lib;

static int load(char *detail, size_t size) {
    if (lib.handle) return 0;
    void *h = dlopen("libgnutls.so.30", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(detail, size, "%s (install libgnutls30)", dlerror());
        return -1;
    }
#define RESOLVE(field, name)                                              \
    do {                                                                  \
        *(void **)(&lib.field) = dlsym(h, name);                          \
        if (!lib.field) {                                                 \
            snprintf(detail, size, "libgnutls.so.30 has no %s", name);    \
            dlclose(h);                                                   \
            memset(&lib, 0, sizeof lib);                                  \
            return -1;                                                    \
        }                                                                 \
    } while (0)
    RESOLVE(crt_init, "gnutls_x509_crt_init");
    RESOLVE(crt_import, "gnutls_x509_crt_import");
    RESOLVE(crt_deinit, "gnutls_x509_crt_deinit");
    RESOLVE(key_init, "gnutls_x509_privkey_init");
    RESOLVE(key_import2, "gnutls_x509_privkey_import2");
    RESOLVE(key_deinit, "gnutls_x509_privkey_deinit");
    RESOLVE(cred_alloc, "gnutls_certificate_allocate_credentials");
    RESOLVE(cred_set_key_mem, "gnutls_certificate_set_x509_key_mem");
    RESOLVE(cred_free, "gnutls_certificate_free_credentials");
    RESOLVE(strerror, "gnutls_strerror");
#undef RESOLVE
    lib.handle = h;
    return 0;
}

int islet_tls_check_pair(const char *cert, size_t cert_size, const char *key, size_t key_size,
                         char *detail, size_t detail_size) {
    if (detail_size) detail[0] = 0;
    if (load(detail, detail_size) != 0) return ISLET_TLS_NO_LIBRARY;
    // GnuTLS takes unsigned int sizes; the caller's files are far smaller (64 KiB).
    if (cert_size > 1u << 24 || key_size > 1u << 24) {
        snprintf(detail, detail_size, "file too large");
        return ISLET_TLS_OTHER;
    }
    gnutls_datum_t c = {(unsigned char *)cert, (unsigned)cert_size};
    gnutls_datum_t k = {(unsigned char *)key, (unsigned)key_size};

    gnutls_x509_crt_t crt;
    int rc = lib.crt_init(&crt);
    if (rc < 0) goto other;
    rc = lib.crt_import(crt, &c, GNUTLS_X509_FMT_PEM);
    lib.crt_deinit(crt);
    if (rc < 0) {
        snprintf(detail, detail_size, "%s", lib.strerror(rc));
        return ISLET_TLS_NOT_A_CERTIFICATE;
    }

    gnutls_x509_privkey_t pk;
    rc = lib.key_init(&pk);
    if (rc < 0) goto other;
    // No password: an encrypted key fails to decrypt (PKCS#8) or asks for one (legacy PEM).
    rc = lib.key_import2(pk, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
    lib.key_deinit(pk);
    if (rc == GNUTLS_E_DECRYPTION_FAILED) {
        snprintf(detail, detail_size, "%s", lib.strerror(rc));
        return ISLET_TLS_KEY_ENCRYPTED;
    }
    if (rc < 0) {
        snprintf(detail, detail_size, "%s", lib.strerror(rc));
        return ISLET_TLS_NOT_A_KEY;
    }

    // What libmicrohttpd does with the pair at its start: GnuTLS compares the key with the certificate's.
    gnutls_certificate_credentials_t cred;
    rc = lib.cred_alloc(&cred);
    if (rc < 0) goto other;
    rc = lib.cred_set_key_mem(cred, &c, &k, GNUTLS_X509_FMT_PEM);
    lib.cred_free(cred);
    if (rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH) {
        snprintf(detail, detail_size, "%s", lib.strerror(rc));
        return ISLET_TLS_MISMATCH;
    }
    if (rc < 0) goto other;
    return ISLET_TLS_OK;
other:
    snprintf(detail, detail_size, "%s", lib.strerror(rc));
    return ISLET_TLS_OTHER;
}
