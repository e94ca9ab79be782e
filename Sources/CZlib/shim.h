// zlib, for the page's gzip files made at build time (islet-page-gen); isletd never links it itself.
#include <zlib.h>
