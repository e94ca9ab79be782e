// libdeflate (Debian's libdeflate-dev), for the page's gzip files and the icons' PNG data made at
// build time by islet-page-gen; isletd never links it.
#include <libdeflate.h>
